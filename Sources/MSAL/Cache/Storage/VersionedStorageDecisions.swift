/// Whether a read of a versioned storage's cache (``MSALSharedCacheStorage``) is served from
/// memory or first asks the storage for its version.
enum VersionedReadDecision: Equatable, Sendable {
    /// Nothing loaded yet: load the document.
    case load
    /// Ask for the stored version; load the document only when it differs from the one held.
    case checkVersion
    /// Serve from memory: the version was checked less than `readStaleness` seconds ago.
    case serveFromMemory

    /// `sinceCheck`: seconds since the version was last known to be current (a load, a save or a
    /// check); `staleness`: the storage's ``MSALSharedCacheStorage/readStaleness``.
    static func decide(loaded: Bool, sinceCheck: Double, staleness: Double) -> VersionedReadDecision {
        guard loaded else { return .load }
        // A clock that went backwards (sinceCheck < 0) proves nothing: check.
        return sinceCheck >= 0 && sinceCheck < staleness ? .serveFromMemory : .checkVersion
    }
}

/// What a change of a versioned storage's cache does after a compare-and-set save.
enum VersionedWriteDecision: Equatable, Sendable {
    /// Saved: the held document is the stored one, at this version.
    case done(version: UInt64)
    /// Another writer saved first: load the newer document, apply the change again (after
    /// `pauseMilliseconds`, to let a burst of writers spread out).
    case reloadAndRetry(pauseMilliseconds: Int)
    /// Conflicts for longer than the cache's lock timeout: the change fails, as a file cache's does
    /// when its lock stays busy.
    case giveUp
    /// Fenced (the refresh lease was lost): the change is dropped, the document reloaded.
    case dropFenced

    /// The longest pause between two attempts, in milliseconds.
    static let maximumPauseMilliseconds = 32

    /// `attempt` counts from 1; `elapsed` is the seconds since the change began and `timeout` the
    /// cache's lock timeout; `jitter` in 0..<1 spreads the pauses of competing writers.
    static func decide(
        _ outcome: MSALCacheSaveOutcome, attempt: Int, elapsed: Double, timeout: Double, jitter: Double
    ) -> VersionedWriteDecision {
        switch outcome {
        case .saved(let version): return .done(version: version)
        case .fenced: return .dropFenced
        case .conflict:
            guard elapsed < timeout else { return .giveUp }
            // The first retry at once (the usual case: the held document was merely stale); then
            // a randomised pause whose ceiling doubles up to 32 ms, so that a writer that keeps
            // losing still gets a turn while the others pause.
            guard attempt > 1 else { return .reloadAndRetry(pauseMilliseconds: 0) }
            let ceiling = min(maximumPauseMilliseconds, 1 << min(attempt - 1, 5))
            return .reloadAndRetry(pauseMilliseconds: Int(Double(ceiling) * jitter))
        }
    }
}

/// What a refresh does when a shared storage's refresh lease (``MSALCacheRefreshCoordinating``)
/// is held by another machine.
enum RefreshLeaseWaitDecision: Equatable, Sendable {
    /// Try to take the lease again after `pauseMilliseconds`: the holder is refreshing, and once
    /// it released the lease the new tokens are in the storage.
    case retry(pauseMilliseconds: Int)
    /// Waited twice the lease duration: fail rather than redeem the refresh token another
    /// machine may be redeeming (a provider that rotates refresh tokens strictly would sign the
    /// user out everywhere).
    case giveUp

    /// `attempt` counts from 1; `elapsed` is the seconds waited so far; `leaseDuration` the
    /// storage's ``MSALCacheRefreshCoordinating/refreshLeaseDuration``; `jitter` in 0..<1.
    static func decide(attempt: Int, elapsed: Double, leaseDuration: Double, jitter: Double) -> RefreshLeaseWaitDecision
    {
        guard elapsed < 2 * leaseDuration else { return .giveUp }
        // 5 ms, doubling up to 100 ms, randomised by half so that waiters spread out.
        let ceiling = min(100, 5 << min(attempt - 1, 5))
        return .retry(pauseMilliseconds: max(1, Int(Double(ceiling) * (0.5 + jitter / 2))))
    }
}
