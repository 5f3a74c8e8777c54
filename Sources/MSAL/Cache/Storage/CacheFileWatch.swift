import MSALNative

/// Tells a cache read whether the cache file may have changed since the last look, without a
/// `stat` of the file each time.
///
/// An inotify watch on the file's folder (``FolderWatch``) queues an event when anything happens
/// to the file: replaced by a rename (how this library and MSAL .NET write), rewritten in place
/// (how MSAL Python's extensions write), deleted, or its attributes changed. The kernel queues
/// the event during the other process's system call, so a read that follows it sees it: reading
/// an empty queue is one non-blocking `read` (about a quarter of a microsecond here, against half
/// to one for a `stat` of a path several folders deep). When the watch cannot answer (no inotify,
/// the folder removed, a queue overflow) or a second has passed, the caller falls back to its
/// `stat`, which stays the authority; the time limit also covers writers inotify does not see
/// (another machine writing to a network file system).
final class CacheFileWatch {
    private let watch: FolderWatch
    private var lastFullCheck: Int64
    /// Set when the watch can no longer see changes (its folder went away, say): every answer is
    /// then "look", and the cache makes a new watch at its next load.
    private(set) var broken = false

    /// The longest time answers come from the watch alone.
    static let fullCheckIntervalNanoseconds: Int64 = 1_000_000_000

    /// Watches the folder of `path`; `nil` when inotify or the folder is not available.
    init?(path: String) {
        guard let watch = FolderWatch(path: path) else { return nil }
        self.watch = watch
        lastFullCheck = FileSystem.coarseMonotonicNanoseconds()
    }

    /// Whether the file certainly has not changed since the previous call (or since the watch was
    /// made). `false` means: look (`stat`); it is also the answer once a second has passed.
    func isQuiet() -> Bool {
        let look = watch.look()
        if look.broken { broken = true }
        let now = FileSystem.coarseMonotonicNanoseconds()
        if look.touched || broken || now - lastFullCheck >= Self.fullCheckIntervalNanoseconds {
            lastFullCheck = now
            return false
        }
        return true
    }
}
