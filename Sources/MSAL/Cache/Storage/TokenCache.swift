import Foundation
import MSALNative

/// The token cache an application uses: the ``TokenStore`` guarded by a lock, kept in step with
/// its storage (memory, a file, or the app's ``MSALCacheStorage``).
///
/// - ``read(_:)`` serves from memory. With a file it first asks the version it holds open whether
///   it is still the file at its path (one `fstat`), and reads the file again only when another
///   process changed it. Reading takes no lock and needs no write access: this library replaces
///   the file by rename, so a reader always opens a whole version. Only what looks corrupt or
///   empty (an in-place writer such as msal-extensions may be half-way) is read again under the
///   locks.
/// - ``modify(persisting:_:)`` is one read-modify-write holding the cross-process locks (``CacheFileLocks``):
///   it reads a changed file again, applies the change and replaces the file, so processes saving
///   at once never lose each other's tokens.
/// - Waiting for those locks happens before the cache's in-process lock is taken, so reads are
///   answered meanwhile: the async ``read(_:)`` and ``modify(persisting:_:)`` wait suspended;
///   ``readBlocking(_:)`` and ``modifyBlocking(persisting:_:)`` (synchronous API only) block their thread.
///
/// Errors thrown are MSAL `NSError`s (``CacheStorageError/error``).
package final class TokenCache: Sendable {
    private struct State {
        var store = TokenStore()
        var loaded = false
        var fingerprint: FileFingerprint?
        /// Corrupt files moved aside and not yet taken by ``takeQuarantines()``.
        var quarantines: [CacheQuarantine] = []
        /// A shared storage's version of the document held (0: nothing stored), and when
        /// (monotonic seconds) it was last known to be the stored one.
        var version: UInt64 = 0
        var versionCheckedAt: Double = 0
        /// When (the app's clock, Unix seconds) a change last checked for lapsed accounts.
        var lapseCheckedAt: Int64?
    }

    private enum Backend {
        case memory
        case file(CacheFile)
        /// `signal`: the signal file of a ``SignalledCacheStorage``.
        case custom(any MSALCacheStorage, key: [UInt8]?, signal: String?)
        /// A storage shared by machines, written by compare-and-set (``MSALSharedCacheStorage``).
        case versioned(any MSALSharedCacheStorage, key: [UInt8]?)
    }

    private let backend: Backend
    private let lockTimeout: Double
    /// The application's clock (a test clock in tests), for the lapse of accounts.
    private let now: @Sendable () -> Date
    private let state = Locked(State())
    /// The async writers' turns: one at a time waits for the cross-process locks (``modify(persisting:_:)``).
    private let writers = TurnQueue()

    init(settings: CacheSettings, now: @escaping @Sendable () -> Date = { Date() }) {
        lockTimeout = settings.lockTimeout
        self.now = now
        let key = settings.encryptionKey
        switch settings.location {
        case .memory: backend = .memory
        case .file(let path, let isDefault):
            backend = .file(CacheFile(path: path, ownsFolder: isDefault, encryptionKey: key))
        case .custom(let storage as any MSALSharedCacheStorage): backend = .versioned(storage, key: key)
        case .custom(let storage):
            backend = .custom(storage, key: key, signal: (storage as? any SignalledCacheStorage)?.signalFilePath)
        }
    }

    /// A cache kept in the file at `path`.
    package convenience init(filePath path: String) {
        self.init(settings: CacheSettings(location: .file(path: path, isDefault: false)))
    }

    /// Makes the next read of a shared storage ask for the stored version, whatever its
    /// ``MSALSharedCacheStorage/readStaleness`` (a refresh lease was just taken).
    func forgetVersionCheck() {
        state.withLock { $0.versionCheckedAt = -Double.infinity }
    }

    /// The storage's refresh coordination, when the cache is in a shared storage that offers it.
    var refreshCoordinator: (any MSALCacheRefreshCoordinating)? {
        if case .versioned(let storage, _) = backend { return storage as? any MSALCacheRefreshCoordinating }
        return nil
    }

    /// The file processes sharing this cache coordinate refreshes around: the cache file, or the
    /// signal file of a ``SignalledCacheStorage`` (a shared storage coordinates them itself).
    var coordinationPath: String? {
        switch backend {
        case .file(let file): file.path
        case .custom(_, _, let signal): signal
        case .memory, .versioned: nil
        }
    }

    /// The corrupt cache files found since the last call (moved aside as `<file>.corrupt-<time>`,
    /// or left in place when the folder is not writable), each reported once.
    func takeQuarantines() -> [CacheQuarantine] {
        state.withLock { state in
            defer { state.quarantines = [] }
            return state.quarantines
        }
    }

    /// Runs `body` on the current cache contents; a wait for the file's locks suspends the task.
    package func read<Result>(_ body: (TokenStore) throws -> Result) async throws -> Result {
        do {
            return try readLoaded(body)
        } catch is ReadUnderLocks {
            return try await modify(persisting: false) { try body($0) }
        }
    }

    /// Runs `body` on the current cache contents. Should the file have to be read again under
    /// its cross-process locks, this thread blocks while they are busy, without holding the
    /// cache (for synchronous API).
    package func readBlocking<Result>(_ body: (TokenStore) throws -> Result) throws -> Result {
        do {
            return try readLoaded(body)
        } catch is ReadUnderLocks {
            return try modifyBlocking(persisting: false) { try body($0) }
        }
    }

    /// Thrown (inside this type only) by a read that must read the file again holding its locks
    /// (it looks corrupt or empty: an in-place writer may be half-way), to wait for them outside
    /// the cache's lock: the read is then made as a change that writes nothing.
    private struct ReadUnderLocks: Error {}

    private func readLoaded<Result>(_ body: (TokenStore) throws -> Result) throws -> Result {
        try state.withLock { state in
            try refreshIfNeeded(&state)
            return try body(state.store)
        }
    }

    /// Turns ``CacheStorageError``s thrown by `body` into MSAL `NSError`s.
    private static func storageErrors<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as CacheStorageError {
            throw error.error
        }
    }

    /// Runs `body` as one read-modify-write and persists the result. With a file, `body` runs
    /// again on a fresh read when the write has to start over (its lock file was removed). A wait
    /// for the file's cross-process locks (or between attempts on a shared storage) blocks this
    /// thread, without holding the cache: readers are answered meanwhile (for synchronous API).
    /// Without `persisting`, nothing is written (a read under the locks).
    package func modifyBlocking<Result>(persisting: Bool = true, _ body: (inout TokenStore) throws -> Result) throws
        -> Result
    {
        var write = Write(timeout: lockTimeout)
        while true {
            switch try attempt(&write, persisting: persisting, body) {
            case .done(let result): return result
            case .again(let pause): if pause > 0 { Thread.sleep(forTimeInterval: Double(pause) / 1e9) }
            }
        }
    }

    /// Runs `body` as one read-modify-write and persists the result (as ``modifyBlocking(persisting:_:)``);
    /// waits suspend the task. The async writers of this cache take turns (``TurnQueue``), so one
    /// at a time waits for the cross-process locks, and its wait (the lock timeout) starts with
    /// its turn. A cancelled task still completes the write: it may save a refresh token the
    /// server has just rotated.
    package func modify<Result>(persisting: Bool = true, _ body: (inout TokenStore) throws -> Result) async throws
        -> Result
    {
        try await writers.withTurn {
            var write = Write(timeout: lockTimeout)
            while true {
                switch try attempt(&write, persisting: persisting, body) {
                case .done(let result): return result
                case .again(let pause): if pause > 0 { await LockWait.sleepIgnoringCancellation(nanoseconds: pause) }
                }
            }
        }
    }

    /// Where a change stands across its attempts.
    private struct Write {
        /// The wait for the cross-process locks: one deadline (the cache's lock timeout) for all.
        var wait: LockWait
        /// Whether ``target`` and ``locks`` are made for this attempt (again after a start-over).
        var prepared = false
        /// The file written, and the cross-process locks taken for it.
        var target: String?
        var locks: CacheFileLocks.Acquisition?
        /// The attempts on a versioned storage, from 1.
        var attempt = 1
        /// When the change began (monotonic seconds).
        let start = TokenCache.monotonicSeconds()

        init(timeout: Double) {
            wait = LockWait(timeout: timeout, backoff: .fileLock)
        }
    }

    /// What one attempt of a change came to.
    private enum Step<Result> {
        case done(Result)
        /// Try again after this many nanoseconds (0: at once), outside the cache's lock.
        case again(pauseNanoseconds: Int64)
    }

    /// One attempt of a change: the cross-process locks tried once and, taken, the change applied
    /// holding the cache's lock. It never waits: it says how long to pause before the next.
    private func attempt<Result>(
        _ write: inout Write, persisting: Bool, _ body: (inout TokenStore) throws -> Result
    ) throws -> Step<Result> {
        try Self.storageErrors {
            if !write.prepared { try prepare(&write) }
            var locks: CacheFileLocks?
            if var acquisition = write.locks {
                defer { write.locks = acquisition }
                switch try acquisition.attempt() {
                case .taken(let taken): locks = taken
                case .wait(let backoff):
                    guard let pause = write.wait.pauseBeforeRetry(waitingWith: backoff) else {
                        throw acquisition.timeout(seconds: write.wait.timeout)
                    }
                    return .again(pauseNanoseconds: pause)
                }
            }
            let step = try modifyHolding(locks, &write, persisting: persisting, body)
            if case .again = step { write.prepared = false }
            return step
        }
    }

    /// What a change must do before it takes the cache's lock: the file it writes, and the
    /// cross-process locks to take.
    private func prepare(_ write: inout Write) throws {
        write.prepared = true
        switch backend {
        case .memory, .versioned:
            break
        case .file(let file):
            let target = try file.writeTarget()
            try file.checkTarget(target)
            try file.checkOwnership(target)
            try file.prepareFolder(for: target)
            write.target = target
            write.locks = CacheFileLocks.Acquisition(ownLockPath: CacheFile.lockPath(for: target), cachePath: file.path)
        case .custom(_, _, let signal):
            guard let signal else { return }
            do throws(FileError) {
                try FileSystem.createFolders(FileSystem.folder(of: signal), mode: 0o700)
            } catch {
                throw FileLock.failure(error, path: signal)
            }
            write.locks = CacheFileLocks.Acquisition(ownLockPath: signal + ".lock", cachePath: signal)
        }
    }

    /// One attempt of a change, holding the cache's lock and the cross-process `locks` taken for
    /// it; it never waits. Without `persisting` (a file read again under its locks), nothing is
    /// written.
    private func modifyHolding<Result>(
        _ locks: CacheFileLocks?, _ write: inout Write, persisting: Bool, _ body: (inout TokenStore) throws -> Result
    ) throws -> Step<Result> {
        defer { withExtendedLifetime(locks) {} }
        return try state.withLock { state in
            switch backend {
            case .memory:
                state.loaded = true
                return .done(try body(&state.store))
            case .file(let file):
                guard let locks, let target = write.target else {
                    preconditionFailure("a file is written under its locks")
                }
                do {
                    return .done(try modifyFile(file, target: target, locks: locks, persisting, &state, body))
                } catch CacheStorageError.lockLost(let path) {
                    // Removed or replaced while held: another writer may have gone
                    // ahead on a new lock file. Start over, reading the file again.
                    state.loaded = false
                    guard !write.wait.isOver() else { throw CacheStorageError.lockLost(path: path) }
                    write.wait.continueWith(.fileLock)
                    return .again(pauseNanoseconds: 0)
                }
            case .custom(let storage, let key, let signal):
                try reloadCustom(storage, key: key, signal: signal, &state)
                let result = try body(&state.store)
                let bytes = try Self.document(state.store, key: key, storage)
                try Self.calling { try storage.save(Data(bytes)) }
                // The storage touched the signal file; under the locks nobody else did since.
                if let signal { state.fingerprint = FileFingerprint.of(path: signal) }
                return .done(result)
            case .versioned(let storage, let key):
                return try modifyVersioned(storage, key: key, &state, &write, body)
            }
        }
    }

    /// One attempt of a change of a versioned storage's document: applied to the version held,
    /// saved by compare-and-set; on a conflict the caller starts again, after the pause
    /// ``VersionedWriteDecision`` asks for and outside the cache's lock, on the newer document.
    /// Under a refresh lease (``RefreshLeaseScope``) the save is fenced by it.
    private func modifyVersioned<Result>(
        _ storage: any MSALSharedCacheStorage, key: [UInt8]?, _ state: inout State,
        _ write: inout Write, _ body: (inout TokenStore) throws -> Result
    ) throws -> Step<Result> {
        if !state.loaded { try reloadVersioned(storage, key: key, &state) }
        let result: Result
        let outcome: MSALCacheSaveOutcome
        do {
            result = try body(&state.store)
            removeLapsedAccounts(&state, storage)
            let bytes = try Self.document(state.store, key: key, storage)
            outcome = try Self.calling {
                try storage.save(Data(bytes), replacingVersion: state.version, lease: RefreshLeaseScope.current)
            }
        } catch {
            // The store may hold part of a change that is not stored: read it again next time.
            state.loaded = false
            throw error
        }
        switch VersionedWriteDecision.decide(
            outcome, attempt: write.attempt, elapsed: Self.monotonicSeconds() - write.start,
            timeout: lockTimeout, jitter: Double.random(in: 0..<1))
        {
        case .done(let version):
            state.version = version
            state.versionCheckedAt = Self.monotonicSeconds()
            return .done(result)
        case .reloadAndRetry(let pause):
            state.loaded = false
            write.attempt += 1
            return .again(pauseNanoseconds: Int64(pause) * 1_000_000)
        case .giveUp:
            state.loaded = false
            throw CacheStorageError.writeConflicts(attempts: write.attempt)
        case .dropFenced:
            Log.warning(
                "Token cache: the refresh lease expired before its result was saved; another holder's newer result is kept"
            )
            state.loaded = false
            return .done(result)
        }
    }

    /// Removes, with a change (at most one a minute: ``AccountLapse/isCheckDue(now:lastCheck:)``),
    /// the accounts of a shared storage that lapsed (``AccountLapse``), when the storage asks for
    /// it (``MSALSharedCacheStorage/unusedAccountLifetime``).
    private func removeLapsedAccounts(_ state: inout State, _ storage: any MSALSharedCacheStorage) {
        let lifetime = storage.unusedAccountLifetime
        guard lifetime.isFinite, lifetime >= 1 else { return }
        let now = AccessTokenStatus.wholeSecondAtOrAfter(now())
        guard AccountLapse.isCheckDue(now: now, lastCheck: state.lapseCheckedAt) else { return }
        state.lapseCheckedAt = now
        let removed = state.store.removeLapsedAccounts(now: now, unusedLifetime: Int64(min(lifetime, 1e12)))
        if !removed.isEmpty {
            Log.info(
                "Token cache: removed \(removed.count) account(s) of the shared cache that nothing can be acquired for silently any more"
            )
        }
    }

    private static func monotonicSeconds() -> Double {
        Double(FileSystem.coarseMonotonicNanoseconds()) / 1e9
    }

    private func modifyFile<Result>(
        _ file: CacheFile, target: String, locks: CacheFileLocks, _ persisting: Bool, _ state: inout State,
        _ body: (inout TokenStore) throws -> Result
    ) throws -> Result {
        if !state.loaded || FileFingerprint.of(path: file.path) != state.fingerprint {
            try reload(file, &state, underLocks: true)
        }
        let result = try body(&state.store)
        guard persisting else { return result }
        state.fingerprint = try file.save(state.store, to: target) {
            guard locks.areStillHeld else { throw CacheStorageError.lockLost(path: CacheFile.lockPath(for: target)) }
        }
        return result
    }

    private func refreshIfNeeded(_ state: inout State) throws {
        do {
            switch backend {
            case .memory:
                state.loaded = true
            case .file(let file):
                if state.loaded, state.fingerprint?.isCurrent == true { return }
                let current = FileFingerprint.of(path: file.path)
                if state.loaded && current == state.fingerprint { return }
                if current == nil {
                    // No file (yet, or removed): an empty cache. Reading creates nothing on disk.
                    if !state.loaded || state.fingerprint != nil { install(TokenStore(), fingerprint: nil, &state) }
                    return
                }
                try reload(file, &state, underLocks: false)
            case .custom(let storage, let key, let signal):
                // With a signal file, the item is loaded again when another process saved.
                if !state.loaded || signal.map({ FileFingerprint.of(path: $0) != state.fingerprint }) == true {
                    try reloadCustom(storage, key: key, signal: signal, &state)
                }
            case .versioned(let storage, let key):
                let now = Self.monotonicSeconds()
                switch VersionedReadDecision.decide(
                    loaded: state.loaded, sinceCheck: now - state.versionCheckedAt, staleness: storage.readStaleness)
                {
                case .serveFromMemory: return
                case .load: try reloadVersioned(storage, key: key, &state)
                case .checkVersion:
                    if try Self.calling(storage.storedVersion) == state.version {
                        state.versionCheckedAt = now
                    } else {
                        try reloadVersioned(storage, key: key, &state)
                    }
                }
            }
        } catch let error as CacheStorageError {
            throw error.error
        }
    }

    /// Reads the file into the store. Without the locks, what looks corrupt or empty is read
    /// again under them (``CacheReadDecision``); under them, a corrupt file is quarantined.
    private func reload(_ file: CacheFile, _ state: inout State, underLocks: Bool) throws {
        let loaded = try file.load()
        let seen: CacheReadDecision.Seen
        switch loaded {
        case .missing: return install(TokenStore(), fingerprint: nil, &state)
        case .document(let store, let fingerprint): return install(store, fingerprint: fingerprint, &state)
        case .emptyFile: seen = .emptyFile
        case .corrupt: seen = .corrupt
        }
        let target = try file.writeTarget()
        let canLock = underLocks || (CacheFile.canWrite(besides: target) && file.mayWriteBeside(target))
        switch (CacheReadDecision.decide(seen, underLocks: underLocks, canLock: canLock), loaded) {
        case (.readAgainUnderLocks, _):
            // Waited for by the read, outside the cache's lock (``read(_:)``).
            throw ReadUnderLocks()
        case (.quarantine, .corrupt(let corrupt, _)):
            state.quarantines.append(file.quarantine(corrupt, move: true))
            install(TokenStore(), fingerprint: nil, &state)
        case (.reportWithoutMoving, .corrupt(let corrupt, let fingerprint)):
            // Reported once per version of the file; it stays until a write replaces it.
            if !state.loaded || state.fingerprint != fingerprint {
                state.quarantines.append(file.quarantine(corrupt, move: false))
            }
            install(TokenStore(), fingerprint: fingerprint, &state)
        case (_, .emptyFile(let fingerprint)):
            install(TokenStore(), fingerprint: fingerprint, &state)
        default:
            install(TokenStore(), fingerprint: nil, &state)
        }
    }

    private func install(_ store: TokenStore, fingerprint: FileFingerprint?, _ state: inout State) {
        state.store = store
        state.fingerprint = fingerprint
        state.loaded = true
    }

    /// Loads a shared storage's document into the store.
    private func reloadVersioned(_ storage: any MSALSharedCacheStorage, key: [UInt8]?, _ state: inout State) throws {
        let now = Self.monotonicSeconds()
        let document = try Self.calling(storage.loadVersioned)
        try install(document.data, key: key, storage, &state)
        (state.version, state.versionCheckedAt) = (document.version, now)
    }

    /// Loads the storage's document into the store; the signal file's fingerprint is taken first,
    /// so that a save after it is seen by the next read.
    private func reloadCustom(
        _ storage: any MSALCacheStorage, key: [UInt8]?, signal: String?, _ state: inout State
    ) throws {
        let fingerprint = signal.flatMap { FileFingerprint.of(path: $0) }
        try install(try Self.calling(storage.load), key: key, storage, &state)
        state.fingerprint = fingerprint
    }

    /// Decrypts and reads a document of the app's storage into the store. With a key, only this
    /// library's ciphertext for the storage (or nothing) is accepted: anyone who can write to a
    /// shared storage could otherwise plant a plaintext document whose tokens would be served, and
    /// whose trace the next save would encrypt away.
    private func install(_ data: Data?, key: [UInt8]?, _ storage: any MSALCacheStorage, _ state: inout State) throws {
        var bytes = data.map { [UInt8]($0) } ?? []
        if CacheEncryption.isEncrypted(bytes) {
            guard let key, let plain = CacheEncryption.open(bytes, key: key, for: .storage(storage.cacheIdentity))
            else {
                throw CacheStorageError.cannotDecrypt(path: "(custom storage)", keyConfigured: key != nil)
            }
            bytes = plain
        } else if key != nil, !CacheDocument.isBlank(bytes) {
            throw CacheStorageError.notEncrypted
        }
        do {
            state.store = try CacheDocument.read(bytes)
        } catch {
            Log.error(
                "Token cache: the custom storage returned a document that is not a valid cache (\(error.reason)); continuing with an empty cache."
            )
            state.store = TokenStore()
        }
        state.loaded = true
    }

    /// The result of a call of the app's storage, its failure as the storage's.
    private static func calling<Result>(_ body: () throws -> Result) throws(CacheStorageError) -> Result {
        do {
            return try body()
        } catch {
            throw .customStorage(error)
        }
    }

    /// The document of `store` for the app's storage, sealed for it when there is a key.
    private static func document(_ store: TokenStore, key: [UInt8]?, _ storage: any MSALCacheStorage) throws
        -> [UInt8]
    {
        let bytes = CacheDocument.write(store)
        guard let key else { return bytes }
        return try CacheEncryption.seal(bytes, key: key, for: .storage(storage.cacheIdentity))
    }
}
