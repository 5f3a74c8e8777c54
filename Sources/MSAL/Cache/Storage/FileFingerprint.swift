import Glibc

/// What identifies one version of the cache file: a rewrite (a new inode by rename) or any
/// change changes it, so the file is re-read only when it changed.
struct FileFingerprint: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    /// Modification and status-change times in nanoseconds since the epoch.
    var modified: Int64
    var changed: Int64

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
    }

    /// The fingerprint of the file at `path`, or `nil` when there is none.
    static func of(path: String) -> FileFingerprint? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileFingerprint(info)
    }
}
