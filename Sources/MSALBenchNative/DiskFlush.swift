internal import Glibc

/// Writing a file's dirty pages back, outside a benchmark's timing.
package enum DiskFlush {
    /// Waits until the file at `path` is on the disk (nothing of it left to write back); does
    /// nothing when it cannot be opened.
    package static func flush(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }
}
