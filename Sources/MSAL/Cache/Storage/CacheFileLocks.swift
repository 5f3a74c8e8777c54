import MSALNative

/// The locks held around a read-modify-write of the cache file (or a ``SignalledCacheStorage``'s
/// signal file): ours (`<file>.lock`, ``FileLock``), then msal-extensions' (`<file>.lockfile`,
/// ``ExtensionsLock``), so neither this library's processes nor Python apps lose each other's
/// writes. Taken by writers, and by a reader that must read again under them.
final class CacheFileLocks {
    private let own: FileLock
    private let extensions: ExtensionsLock

    /// Takes both within `timeout` seconds in all: ours at `lockPath` (beside the file a link
    /// points to), the extension's for `path`.
    init(lockPath: String, extensionsFor path: String, timeout: Double) throws(CacheStorageError) {
        let start = FileSystem.coarseMonotonicNanoseconds()
        own = try FileLock(path: lockPath, timeout: timeout)
        let spent = Double(FileSystem.coarseMonotonicNanoseconds() - start) / 1e9
        extensions = try ExtensionsLock(cachePath: path, timeout: max(0, timeout - spent))
    }

    /// Whether the write is still exclusive: at least one of the two lock files is still the one
    /// locked at its path. A cleaner that removes `*.lock` breaks ours, and another writer may
    /// then lock a new file of that name; but it must still wait for the extension's lockfile,
    /// which we hold. When both were removed, a writer starts over instead of replacing the file.
    var areStillHeld: Bool { own.isStillAtPath || extensions.isStillAtPath }

    deinit {
        extensions.release()
    }
}
