import MSALNative

/// What identifies one version of the cache file: a rewrite (a new inode by rename) or any
/// change changes it, so the file is re-read only when it changed.
struct FileFingerprint: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    /// Modification and status-change times in nanoseconds since the epoch.
    var modified: Int64
    var changed: Int64

    init(_ status: FileStatus) {
        device = status.device
        inode = status.inode
        size = status.size
        modified = status.modifiedNanoseconds
        changed = status.changedNanoseconds
    }

    /// The fingerprint of the file at `path`, or `nil` when there is none.
    static func of(path: String) -> FileFingerprint? {
        FileStatus.of(path: path).map(FileFingerprint.init)
    }
}
