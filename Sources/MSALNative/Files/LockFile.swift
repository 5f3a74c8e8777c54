internal import Glibc

/// A file used for an exclusive cross-process lock (`flock(2)`), such as `<cache>.lock`.
///
/// Opened with `O_NOFOLLOW | O_CLOEXEC` (a symbolic link planted at the path is refused, never
/// followed, so nothing is created elsewhere), created with mode 0600 when asked. The kernel
/// releases the lock when the descriptor closes, including when the process dies. The descriptor
/// is closed in `deinit`.
package final class LockFile: Sendable {
    package let path: String
    let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Opens (creating with mode 0600 when `create`) the lock file at `path` for reading and
    /// writing; `truncate` empties it. Never follows a symbolic link, never blocks. `nil` when it
    /// does not exist and `create` is false.
    package static func open(_ path: String, create: Bool = true, truncate: Bool = false) throws(FileError)
        -> LockFile?
    {
        var flags = O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
        if create { flags |= O_CREAT }
        if truncate { flags |= O_TRUNC }
        let descriptor = Glibc.open(path, flags, mode_t(0o600))
        guard descriptor >= 0 else {
            if !create && errno == ENOENT { return nil }
            throw .last("open the lock file", path)
        }
        let file = LockFile(path: path, descriptor: descriptor)
        guard try file.status().kind == .regular else {
            throw FileError("lock", path: path, code: EINVAL)
        }
        return file
    }

    /// Creates the lock file at `path` exclusively (`O_CREAT | O_EXCL | O_NOFOLLOW`, mode 0600)
    /// and opens it for reading and writing; `nil` when something already exists there.
    package static func createNew(_ path: String) throws(FileError) -> LockFile? {
        let descriptor = Glibc.open(
            path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode_t(0o600))
        guard descriptor >= 0 else {
            if errno == EEXIST { return nil }
            throw .last("create the lock file", path)
        }
        return LockFile(path: path, descriptor: descriptor)
    }

    /// Opens an existing file read-only only to test or take its lock (a temporary file of
    /// another writer, say); never follows a link, never blocks. `nil` when nothing is there.
    package static func openExistingForLocking(_ path: String) throws(FileError) -> LockFile? {
        let descriptor = Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw .last("open", path)
        }
        return LockFile(path: path, descriptor: descriptor)
    }

    /// Takes the exclusive lock if it is free now (`LOCK_EX | LOCK_NB`); `false` when another
    /// descriptor holds it. Never blocks: callers wait between tries as suits them (the library's
    /// `LockWait`), outside any in-process lock.
    package func tryLock() throws(FileError) -> Bool {
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            if errno == EWOULDBLOCK { return false }
            throw .last("lock", path)
        }
        return true
    }

    /// Releases the lock (closing the file also does).
    package func unlock() {
        _ = flock(descriptor, LOCK_UN)
    }

    /// The status of the open file (`fstat`).
    package func status() throws(FileError) -> FileStatus {
        try FileStatus.of(descriptor: descriptor, path: path)
    }

    /// Whether ``path`` still names the file this descriptor has open (same device and inode):
    /// `false` when the name was removed or now names another file (a cleaner removed the lock
    /// file, and another process made a new one, whose lock is not this one).
    package func isStillAtPath() throws(FileError) -> Bool {
        guard let named = try FileSystem.status(path) else { return false }
        return try status().isSameFile(as: named)
    }

    /// Replaces the file's contents with `bytes`.
    package func replaceContents(_ bytes: [UInt8]) throws(FileError) {
        guard ftruncate(descriptor, 0) == 0 else { throw .last("truncate", path) }
        try FileSystem.writeAll(descriptor, bytes, at: 0, path: path)
    }

    /// Up to `limit` bytes of the file from its start.
    package func contents(limit: Int = 4096) throws(FileError) -> [UInt8] {
        try FileSystem.readAll(descriptor, limit: limit, path: path)
    }
}
