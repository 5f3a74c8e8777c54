internal import Glibc

/// The path operations the token cache needs from the system, each one call (or a short,
/// bounded sequence of calls), with failures as ``FileError``.
package enum FileSystem {
    /// The status of what `path` names, following symbolic links (`stat`); `nil` when nothing is there.
    package static func status(_ path: String) throws(FileError) -> FileStatus? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw .last("stat", path)
        }
        return FileStatus(info)
    }

    /// The status of `path` itself, not following a final symbolic link (`lstat`); `nil` when
    /// nothing is there.
    package static func linkStatus(_ path: String) throws(FileError) -> FileStatus? {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw .last("stat", path)
        }
        return FileStatus(info)
    }

    /// Renames `source` to `target`, replacing `target` atomically (`rename`).
    package static func rename(_ source: String, to target: String) throws(FileError) {
        guard Glibc.rename(source, target) == 0 else { throw .last("rename \(name(of: source)) into place", target) }
    }

    /// Removes the name `path` (`unlink`); `false` when nothing was there.
    @discardableResult
    package static func remove(_ path: String) throws(FileError) -> Bool {
        guard unlink(path) == 0 else {
            if errno == ENOENT { return false }
            throw .last("remove", path)
        }
        return true
    }

    /// Creates `path` and every missing folder above it, each with `mode` (`mkdir -p`).
    package static func createFolders(_ path: String, mode: UInt32) throws(FileError) {
        if path.isEmpty || path == "/" { return }
        if let existing = try status(path) {
            guard existing.kind == .directory else {
                throw FileError("create the folder", path: path, code: ENOTDIR)
            }
            return
        }
        try createFolders(folder(of: path), mode: mode)
        if mkdir(path, mode_t(mode)) != 0 && errno != EEXIST { throw .last("create the folder", path) }
    }

    /// Sets the permission bits of `path` (`chmod`).
    package static func setPermissions(_ path: String, _ mode: UInt32) throws(FileError) {
        guard chmod(path, mode_t(mode)) == 0 else { throw .last("change the permissions", path) }
    }

    /// Flushes a folder's entries (a rename in it) to storage (`fsync` of the folder).
    package static func syncFolder(_ path: String) throws(FileError) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .last("open the folder", path) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw .last("fsync the folder", path) }
    }

    /// The names in a folder, without `.` and `..`.
    package static func names(inFolder path: String) throws(FileError) -> [String] {
        guard let folder = opendir(path) else { throw .last("list the folder", path) }
        defer { closedir(folder) }
        var names: [String] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The folder part of `path` (`.` for a bare name, `/` at the root).
    package static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let folder = String(path[..<slash])
        return folder.isEmpty ? "/" : folder
    }

    /// The last component of `path`.
    package static func name(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// The path a chain of symbolic links at `path` ends at (the final component only: the
    /// folders on the way are kept as given). A relative link is resolved against the folder of
    /// the link. The end need not exist (a dangling link gives the path it points to). `path`
    /// itself when it is not a link.
    package static func resolvingSymbolicLinks(_ path: String) throws(FileError) -> String {
        var current = path
        for _ in 0..<40 {
            guard let target = try linkTarget(current) else { return current }
            current = target.hasPrefix("/") ? target : folder(of: current) + "/" + target
        }
        throw FileError("resolve the symbolic links", path: path, code: ELOOP)
    }

    /// What the symbolic link at `path` points to (`readlink`); `nil` when `path` is not a link
    /// or does not exist.
    package static func linkTarget(_ path: String) throws(FileError) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes {
            readlink(path, $0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count)
        }
        if count < 0 {
            if errno == EINVAL || errno == ENOENT || errno == ENOTDIR { return nil }
            throw .last("read the symbolic link", path)
        }
        return String(decoding: buffer.prefix(count), as: UTF8.self)
    }

    /// Whether the process `pid` exists (in this PID namespace); a process of another user counts.
    package static func isProcessAlive(_ pid: Int32) -> Bool {
        guard pid > 0 else { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    /// This process's effective user id (the owner of the files it creates).
    package static var currentUserID: UInt32 { UInt32(geteuid()) }

    /// This process's id.
    package static var currentProcessID: Int32 { getpid() }

    /// Whether this process may create, rename and remove files in the folder `path`
    /// (`access(W_OK | X_OK)`, which also sees a read-only file system).
    package static func isWritableFolder(_ path: String) -> Bool {
        access(path, W_OK | X_OK) == 0
    }

    /// Creates `path` exclusively (`O_CREAT | O_EXCL | O_NOFOLLOW`, so a planted link creates
    /// nothing elsewhere) with `contents` and `mode`; `false` when something already exists there.
    @discardableResult
    package static func createExclusively(_ path: String, contents: [UInt8], mode: UInt32 = 0o600) throws(FileError)
        -> Bool
    {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(mode))
        guard descriptor >= 0 else {
            if errno == EEXIST { return false }
            throw .last("create", path)
        }
        defer { close(descriptor) }
        try writeAll(descriptor, contents, at: 0, path: path)
        return true
    }

    /// Up to `limit` bytes from the start of the regular file at `path`, opened so that it can
    /// never block nor follow a link (`O_NONBLOCK | O_NOFOLLOW`); `nil` when nothing is there or
    /// it is not a regular file.
    package static func readSmallFile(_ path: String, limit: Int = 4096) throws(FileError) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT || errno == ELOOP { return nil }
            throw .last("open", path)
        }
        defer { close(descriptor) }
        guard try FileStatus.of(descriptor: descriptor, path: path).kind == .regular else { return nil }
        return try readAll(descriptor, limit: limit, path: path)
    }

    /// Nanoseconds on a coarse monotonic clock (`CLOCK_MONOTONIC_COARSE`: a few milliseconds of
    /// resolution, read without a system call), for intervals wall-clock changes cannot move.
    package static func coarseMonotonicNanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// Nanoseconds since the epoch (`CLOCK_REALTIME`), comparable with file times.
    package static func wallClockNanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], at offset: Int, path: String) throws(FileError) {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { raw in
                pwrite(descriptor, raw.baseAddress! + written, raw.count - written, off_t(offset + written))
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw .last("write", path)
            }
            written += count
        }
    }

    static func readAll(_ descriptor: Int32, limit: Int, path: String) throws(FileError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(0, limit))
        var total = 0
        while total < bytes.count {
            let count = bytes.withUnsafeMutableBytes { raw in
                pread(descriptor, raw.baseAddress! + total, raw.count - total, off_t(total))
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw .last("read", path)
            }
            if count == 0 { break }
            total += count
        }
        bytes.removeSubrange(total...)
        return bytes
    }
}
