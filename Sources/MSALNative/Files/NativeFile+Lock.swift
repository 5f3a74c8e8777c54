internal import Glibc

extension NativeFile {
    /// Takes the exclusive `flock` of this open file if it is free now; `false` when another
    /// descriptor holds it. A writer holds it on its temporary file while writing, so a sweep of
    /// leftover temporary files can tell a live writer's file (in any PID namespace) from a dead one's.
    package func tryLock() throws(FileError) -> Bool {
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            if errno == EWOULDBLOCK { return false }
            throw .last("lock", path)
        }
        return true
    }

    /// Releases the `flock` taken by ``tryLock()`` (closing the file also does).
    package func unlock() {
        _ = flock(descriptor, LOCK_UN)
    }
}
