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

    private init(file: LockFile) {
        self.file = file
    }

    /// Taking the lock on `path` one try at a time, so that the caller chooses how to wait between
    /// tries. The file is opened (created with mode 0600, never through a symbolic link) once and
    /// kept open while waited for.
    struct Acquisition {
        let path: String
        private var opened: LockFile?

        init(path: String) {
            self.path = path
        }

        /// One try: the lock, or `nil` when another holds it.
        mutating func attempt() throws(CacheStorageError) -> FileLock? {
            do {
                // A second round only when the file locked was removed or replaced meanwhile.
                for _ in 0..<2 {
                    if opened == nil { opened = try LockFile.open(path) }
                    guard let file = opened else { return nil }
                    guard try file.tryLock() else { return nil }
                    if try file.isStillAtPath() {
                        opened = nil
                        return FileLock(file: file)
                    }
                    // Removed or replaced while waited for: lock the file now at the path instead.
                    file.unlock()
                    opened = nil
                }
                return nil
            } catch {
                throw FileLock.failure(error, path: path)
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
