import Glibc

/// Disk space for a file that a save is about to fill.
package enum CopySpace {
    /// Allocates the first `bytes` of the empty file `file` (`posix_fallocate`, through a second
    /// descriptor of the same file, opened at its path without following links and checked to be
    /// the same device and inode), so that a large write does not make the file system allocate
    /// block by block, nor flush the file when it is renamed over another (ext4 does both for a
    /// file written without allocated blocks). Returns whether the file is now `bytes` long; when
    /// `false` it is left empty. The caller truncates it to what it wrote.
    @discardableResult
    package static func reserve(_ bytes: Int, for file: NativeFile) -> Bool {
        guard bytes > 0, let expected = try? file.status(), expected.size == 0 else { return false }
        let descriptor = open(file.path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, FileStatus(info).isSameFile(as: expected) else { return false }
        if posix_fallocate(descriptor, 0, off_t(bytes)) == 0 { return true }
        // A failure (no space) may leave part of it allocated: the file starts empty again.
        _ = ftruncate(descriptor, 0)
        return false
    }
}
