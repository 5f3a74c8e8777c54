internal import Glibc

/// One-byte POSIX record locks (`fcntl(F_SETLK)`) in a file shared by every process using it,
/// one byte per resource (a refresh of one token, say).
///
/// Record locks belong to the process, not the descriptor: closing ANY descriptor of the file
/// drops all of the process's locks on it, and a second lock of the same byte by the same process
/// succeeds at once. So one descriptor per path is shared by every ``RecordLockFile`` of the
/// process (counted, closed with the last one), and a byte locked by one of them is busy for the
/// others in this process as well, as it is for other processes.
package final class RecordLockFile: Sendable {
    private struct Shared {
        var descriptor: Int32
        var users: Int
        /// Bytes locked by this process.
        var held: Set<Int64>
    }

    /// Every open lock file of the process, by path.
    private static let files = Locked<[String: Shared]>([:])

    package let path: String

    /// Opens (creating with mode 0600, never following a link) the lock file at `path`, or shares
    /// the descriptor another ``RecordLockFile`` of this process has open for it.
    package init(path: String) throws(FileError) {
        self.path = path
        let opened: Result<Void, FileError> = Self.files.withLock { files in
            if files[path] != nil {
                files[path]!.users += 1
                return .success(())
            }
            let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode_t(0o600))
            guard descriptor >= 0 else { return .failure(.last("open the lock file", path)) }
            files[path] = Shared(descriptor: descriptor, users: 1, held: [])
            return .success(())
        }
        try opened.get()
    }

    deinit {
        let path = path
        Self.files.withLock { files in
            guard var shared = files[path] else { return }
            shared.users -= 1
            if shared.users == 0 {
                close(shared.descriptor)
                files[path] = nil
            } else {
                files[path] = shared
            }
        }
    }

    /// Whether the file of `path` is open in this process (for tests).
    package static func isOpen(path: String) -> Bool {
        files.withLock { $0[path] != nil }
    }

    /// Locks the byte at `offset` if no process (this one included) holds it; `false` when busy.
    package func tryLock(byte offset: Int64) throws(FileError) -> Bool {
        let path = path
        let outcome: Result<Bool, FileError> = Self.files.withLock { files in
            guard let shared = files[path] else { return .success(false) }
            if shared.held.contains(offset) { return .success(false) }
            while !Self.set(shared.descriptor, F_WRLCK, offset: offset) {
                if errno == EINTR { continue }
                if errno == EACCES || errno == EAGAIN { return .success(false) }
                return .failure(.last("lock a byte", path))
            }
            files[path]!.held.insert(offset)
            return .success(true)
        }
        return try outcome.get()
    }

    /// Releases the byte at `offset`, when this process holds it.
    package func unlock(byte offset: Int64) {
        let path = path
        Self.files.withLock { files in
            guard let shared = files[path], shared.held.contains(offset) else { return }
            Self.set(shared.descriptor, F_UNLCK, offset: offset)
            files[path]!.held.remove(offset)
        }
    }

    @discardableResult
    private static func set(_ descriptor: Int32, _ type: Int32, offset: Int64) -> Bool {
        var lock = flock()
        lock.l_type = Int16(type)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(offset)
        lock.l_len = 1
        return fcntl(descriptor, F_SETLK, &lock) == 0
    }
}
