import Glibc

/// What kind of thing a path names.
package enum FileKind: Sendable, Equatable {
    case regular, directory, fifo, characterDevice, blockDevice, socket, symbolicLink, other

    init(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .directory
        case S_IFIFO: self = .fifo
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        case S_IFSOCK: self = .socket
        case S_IFLNK: self = .symbolicLink
        default: self = .other
        }
    }

    /// A few words for messages ("a FIFO", "a character device", ...).
    package var phrase: String {
        switch self {
        case .regular: "a regular file"
        case .directory: "a directory"
        case .fifo: "a FIFO (named pipe)"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .socket: "a socket"
        case .symbolicLink: "a symbolic link"
        case .other: "not a regular file"
        }
    }
}

/// One version of a file as `stat(2)` sees it: a rewrite by rename (a new inode) or any change
/// of its bytes changes it.
package struct FileStatus: Sendable, Equatable {
    package var device: UInt64
    package var inode: UInt64
    package var size: Int64
    /// Modification and status-change times, nanoseconds since the epoch.
    package var modifiedNanoseconds: Int64
    package var changedNanoseconds: Int64
    package var kind: FileKind
    /// The permission bits (`st_mode & 0o7777`).
    package var permissions: UInt32
    /// The owner's user id.
    package var owner: UInt32
    /// How many names the file has: 0 once it was removed or replaced by a rename.
    package var links: UInt64

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modifiedNanoseconds = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        changedNanoseconds = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
        kind = FileKind(mode: info.st_mode)
        permissions = UInt32(info.st_mode) & 0o7777
        owner = UInt32(info.st_uid)
        links = UInt64(info.st_nlink)
    }

    /// Whether `other` is the same file (device and inode), whatever its contents.
    package func isSameFile(as other: FileStatus) -> Bool {
        device == other.device && inode == other.inode
    }

    /// The status of `path`, following symbolic links; `nil` when there is nothing there.
    package static func of(path: String) -> FileStatus? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileStatus(info)
    }
}

/// A failed file system call: what was attempted, on which path, and the `errno` it gave.
package struct FileError: Error, Sendable, CustomStringConvertible {
    /// What was attempted, as words ("open the cache file").
    package var operation: String
    package var path: String
    package var code: Int32

    package init(_ operation: String, path: String, code: Int32) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    /// The system's text for ``code``.
    package var message: String { String(cString: strerror(code)) }

    package var isNotFound: Bool { code == ENOENT }

    package var description: String { "could not \(operation) at \(path): \(message) (errno \(code))" }
}

/// An open file descriptor, closed when the value is released.
///
/// `Sendable`: positioned reads and writes (`pread`, `pwrite`) do not share a file offset, so
/// threads may use one descriptor at once.
package final class NativeFile: Sendable {
    let descriptor: Int32
    /// The path it was opened at (for errors).
    package let path: String

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit {
        close(descriptor)
    }

    /// Opens `path` for reading, following symbolic links, without ever blocking in `open`
    /// (`O_NONBLOCK`: a FIFO opens at once instead of waiting for a writer). Check ``status()``
    /// before reading: only a regular file is read without blocking.
    package static func openForReading(_ path: String) throws(FileError) -> NativeFile {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileError("open", path: path, code: errno) }
        return NativeFile(descriptor: descriptor, path: path)
    }

    /// Creates `path`, which must not exist (not even as a symbolic link), for reading and
    /// writing with `mode`.
    package static func createNew(_ path: String, mode: UInt32) throws(FileError) -> NativeFile {
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(mode))
        guard descriptor >= 0 else { throw FileError("create", path: path, code: errno) }
        return NativeFile(descriptor: descriptor, path: path)
    }

    /// The file's status (`fstat`).
    package func status() throws(FileError) -> FileStatus {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw FileError("stat", path: path, code: errno) }
        return FileStatus(info)
    }

    /// Reads into `buffer` from `offset` until it is full or the file ends; the number of bytes read.
    package func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(FileError) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var total = 0
        while total < buffer.count {
            let count = pread(descriptor, base + total, buffer.count - total, off_t(offset + total))
            if count < 0 {
                if errno == EINTR { continue }
                throw FileError("read", path: path, code: errno)
            }
            if count == 0 { break }
            total += count
        }
        return total
    }

    /// Up to `count` bytes from `offset` (fewer at the end of the file).
    package func read(at offset: Int, count: Int) throws(FileError) -> [UInt8] {
        guard count > 0 else { return [] }
        var failure: FileError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do throws(FileError) {
                initialized = try read(at: offset, into: UnsafeMutableRawBufferPointer(buffer))
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// Writes all of `bytes` at `offset`.
    package func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(FileError) {
        guard let base = bytes.baseAddress else { return }
        var written = 0
        while written < bytes.count {
            let count = pwrite(descriptor, base + written, bytes.count - written, off_t(offset + written))
            if count < 0 {
                if errno == EINTR { continue }
                throw FileError("write", path: path, code: errno)
            }
            written += count
        }
    }

    /// Writes all of `bytes` at `offset`.
    package func write(_ bytes: Span<UInt8>, at offset: Int) throws(FileError) {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(FileError) in try write(buffer, at: offset) }
        }
        try result.get()
    }

    /// Writes all of `bytes` at `offset`.
    package func write(_ bytes: [UInt8], at offset: Int) throws(FileError) {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(FileError) in try write(buffer, at: offset) }
        }
        try result.get()
    }

    /// Shortens (or extends) the file to `size` bytes.
    package func truncate(to size: Int) throws(FileError) {
        guard ftruncate(descriptor, off_t(size)) == 0 else { throw FileError("truncate", path: path, code: errno) }
    }

    /// Flushes the file's data and metadata to the device (`fsync`).
    package func sync() throws(FileError) {
        guard fsync(descriptor) == 0 else { throw FileError("fsync", path: path, code: errno) }
    }
}
