import MSALNative

/// The locks held around a read-modify-write of the cache file (or a ``SignalledCacheStorage``'s
/// signal file): ours (`<file>.lock`, ``FileLock``), then msal-extensions' (`<file>.lockfile`,
/// ``ExtensionsLock``), so neither this library's processes nor Python apps lose each other's
/// writes. Taken one try at a time (``Acquisition``), never while the cache's in-process state is
/// locked: async callers wait suspended, synchronous ones block only their own thread.
final class CacheFileLocks {
    private let own: FileLock
    private let extensions: ExtensionsLock

    private init(own: FileLock, extensions: ExtensionsLock) {
        self.own = own
        self.extensions = extensions
    }

    /// Taking both locks one try at a time: first ours, then, holding it, the extension's.
    struct Acquisition {
        private var ownAcquisition: FileLock.Acquisition
        private var own: FileLock?
        private let cachePath: String

        /// Ours at `ownLockPath`, the extension's beside `cachePath`.
        init(ownLockPath: String, cachePath: String) {
            ownAcquisition = FileLock.Acquisition(path: ownLockPath)
            self.cachePath = cachePath
        }

        /// One try: both locks, or the pauses to wait with before the next try.
        mutating func attempt() throws(CacheStorageError) -> LockWait.Attempt<CacheFileLocks> {
            if own == nil {
                own = try ownAcquisition.attempt()
                guard own != nil else { return .wait(.fileLock) }
            }
            guard let own, let extensions = try ExtensionsLock.attempt(cachePath: cachePath) else {
                return .wait(.extensionsLock)
            }
            self.own = nil
            return .taken(CacheFileLocks(own: own, extensions: extensions))
        }

        /// The error when the wait ran out: it names the lock waited for.
        func timeout(seconds: Double) -> CacheStorageError {
            .lockTimeout(
                path: own == nil ? ownAcquisition.path : ExtensionsLock.path(forCache: cachePath), seconds: seconds)
        }
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
