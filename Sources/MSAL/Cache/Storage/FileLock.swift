import Foundation
import Glibc

/// An exclusive cross-process lock: `flock(2)` on a lock file next to the cache file.
///
/// The kernel releases a flock when its holder's file descriptor closes, including when the
/// process dies (even by SIGKILL), so a lock is never left behind by a dead process; the lock
/// file itself may remain and is simply locked again. Waiting is bounded.
final class FileLock {
    private let descriptor: Int32

    /// Takes the lock on `path`, creating the file (mode 0600) when missing; polls with a short
    /// back-off and fails after `timeout` seconds.
    init(path: String, timeout: Double) throws {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CacheStorageError.io("open the lock file", path: path, errno: errno)
        }
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, timeout) * 1e9)
        var pause: UInt32 = 500  // microseconds
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let error = errno
            guard error == EWOULDBLOCK || error == EINTR else {
                close(descriptor)
                throw CacheStorageError.io("lock", path: path, errno: error)
            }
            guard DispatchTime.now().uptimeNanoseconds < deadline else {
                close(descriptor)
                throw CacheStorageError.lockTimeout(path: path, seconds: timeout)
            }
            usleep(pause)
            // A short cap keeps a waiter from being starved by processes that take the lock again
            // and again between its polls (flock has no queue for non-blocking waiters).
            pause = min(pause * 2, 2_000)
        }
        self.descriptor = descriptor
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
