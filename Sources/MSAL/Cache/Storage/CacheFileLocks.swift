import MSALNative

/// The locks held around a read-modify-write of the cache file: ours (`<file>.lock`, see
/// ``FileLock``), then MSAL Python's extension's (`<cache>.lockfile`, see ``ExtensionsLock``), so
/// that neither this library's processes nor Python apps on the same file lose each other's
/// writes. Released in the other order. Taken only by writers, and by a reader that must read
/// again under them; a read-only folder takes none.
final class CacheFileLocks {
    private let own: FileLock
    private let extensions: ExtensionsLock

    /// Takes both for writes of `target` (the file ``CacheFile/writeTarget()`` names) of `file`,
    /// within `timeout` seconds in all.
    init(_ file: CacheFile, target: String, timeout: Double) throws(CacheStorageError) {
        let start = FileSystem.coarseMonotonicNanoseconds()
        own = try FileLock(path: CacheFile.lockPath(for: target), timeout: timeout)
        let spent = Double(FileSystem.coarseMonotonicNanoseconds() - start) / 1e9
        extensions = try ExtensionsLock(cachePath: file.path, timeout: max(0, timeout - spent))
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
