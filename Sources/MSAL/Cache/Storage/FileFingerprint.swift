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
    /// The version, held open when it was read or written by this process: asking it (`fstat`)
    /// costs a third of a `stat` of the path.
    var file: NativeFile?

    init(_ status: FileStatus, file: NativeFile? = nil) {
        device = status.device
        inode = status.inode
        size = status.size
        modified = status.modifiedNanoseconds
        changed = status.changedNanoseconds
        self.file = file
    }

    /// The fingerprint of the file at `path`, or `nil` when there is none.
    static func of(path: String) -> FileFingerprint? {
        FileStatus.of(path: path).map { FileFingerprint($0) }
    }

    /// Whether the version held open is still the file at its path, unchanged: `false` once it was
    /// replaced by a rename or removed (it has no name left) or rewritten in place (another size
    /// or time); `nil` when no version is held open.
    var isCurrent: Bool? {
        guard let file else { return nil }
        guard let status = try? file.status() else { return false }
        return status.links > 0 && FileFingerprint(status) == self
    }

    static func == (lhs: FileFingerprint, rhs: FileFingerprint) -> Bool {
        lhs.device == rhs.device && lhs.inode == rhs.inode && lhs.size == rhs.size && lhs.modified == rhs.modified
            && lhs.changed == rhs.changed
    }
}
