import Foundation
import MSALNative

/// An exclusive cross-process lock: `flock(2)` on a lock file next to the cache file.
///
/// The kernel releases a flock when its holder's file descriptor closes, including when the
/// process dies (even by SIGKILL), so a lock is never left behind by a dead process; the lock
/// file itself may remain and is simply locked again. Waiting is bounded.
///
/// A lock file removed while held or waited for (temp cleaners, `rm *.lock`) would let a newcomer
/// lock a new file of the same name at once. So after taking the lock, the file locked must still
/// be the one at the path (same device and inode), or it starts over; and a writer checks again
/// just before it replaces the cache file (``isStillAtPath``).
final class FileLock {
    private let file: LockFile

    /// Takes the lock on `path`, creating the file (mode 0600, never through a symbolic link)
    /// when missing; fails after `timeout` seconds.
    init(path: String, timeout: Double) throws(CacheStorageError) {
        let deadline = FileSystem.coarseMonotonicNanoseconds() + Int64(max(0, timeout) * 1e9)
        while true {
            let file: LockFile
            do {
                guard let opened = try LockFile.open(path) else { continue }
                file = opened
                let left = Double(deadline - FileSystem.coarseMonotonicNanoseconds()) / 1e9
                guard try file.lock(timeout: max(0, left)) else {
                    throw CacheStorageError.lockTimeout(path: path, seconds: timeout)
                }
                if try file.isStillAtPath() {
                    self.file = file
                    return
                }
            } catch let error as FileError {
                throw Self.failure(error, path: path)
            } catch let error as CacheStorageError {
                throw error
            } catch {
                throw .io("lock", path: path, errno: 0)
            }
            // Removed or replaced while waited for: lock the file now at the path instead.
            guard FileSystem.coarseMonotonicNanoseconds() < deadline else {
                throw .lockTimeout(path: path, seconds: timeout)
            }
        }
    }

    /// Whether the lock file locked is still the one at its path.
    var isStillAtPath: Bool {
        (try? file.isStillAtPath()) ?? false
    }

    /// The typed error of a lock file that could not be opened or locked.
    static func failure(_ error: FileError, path: String) -> CacheStorageError {
        if error.isSymbolicLink || error.isNotLockable { return .unsafeLockFile(path: path) }
        if error.isReadOnlyOrDenied {
            return .notWritable(path: path, folder: FileSystem.folder(of: path), reason: error.message)
        }
        return .file(error, "open the lock file")
    }

    deinit {
        file.unlock()
    }
}
