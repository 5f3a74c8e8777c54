import Foundation
import MSALNative

/// The token cache an application uses: the indexed ``TokenStore`` guarded by a lock, kept in
/// step with its storage (file, memory or the app's storage).
///
/// - ``read(_:)`` serves from memory; with a file it first asks the version it holds open whether
///   it is still the file at its path (one `fstat`), and re-reads the file only when another
///   process changed it. Reading takes no lock
///   and needs no write access: this library replaces the file by rename, so a reader always
///   opens a whole version. Only what looks corrupt or empty (an in-place writer such as MSAL
///   Python's extension may be half-way) is read again under the locks.
/// - ``modify(_:)`` is one read-modify-write: it holds the cross-process locks
///   (``CacheFileLocks``), re-reads the file if it changed, applies the change, and writes the
///   file atomically. Two processes saving concurrently therefore never lose each other's tokens.
///
/// Errors thrown are MSAL `NSError`s (``CacheStorageError/error``).
package final class TokenCache: Sendable {
    private struct State {
        var store = TokenStore()
        var loaded = false
        var fingerprint: FileFingerprint?
        /// Corrupt files moved aside and not yet taken by ``takeQuarantines()``.
        var quarantines: [CacheQuarantine] = []
        /// A versioned storage's version of the document held (0: nothing stored).
        var version: UInt64 = 0
        /// When (monotonic seconds) ``version`` was last known to be the stored one.
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

    init(settings: CacheSettings, now: @escaping @Sendable () -> Date = { Date() }) {
        lockTimeout = settings.lockTimeout
        self.now = now
        switch settings.location {
        case .memory:
            backend = .memory
        case .file(let path, let isDefault):
            backend = .file(
                CacheFile(
                    path: path, ownsFolder: isDefault, encryptionKey: settings.encryptionKey,
                    durable: settings.durable))
        case .custom(let storage):
            if let versioned = storage as? any MSALSharedCacheStorage {
                backend = .versioned(versioned, key: settings.encryptionKey)
            } else {
                let signal = (storage as? any SignalledCacheStorage)?.signalFilePath
                backend = .custom(storage, key: settings.encryptionKey, signal: signal)
            }
        }
    }

    /// Makes the next read of a versioned storage's cache ask for the stored version, whatever
    /// its ``MSALSharedCacheStorage/readStaleness`` (a refresh lease was just taken: another
    /// machine may have stored the result).
    func forgetVersionCheck() {
        state.withLock { $0.versionCheckedAt = -Double.infinity }
    }

    /// The storage's refresh coordination, when the cache is in a shared storage that offers it.
    var refreshCoordinator: (any MSALCacheRefreshCoordinating)? {
        if case .versioned(let storage, _) = backend { return storage as? any MSALCacheRefreshCoordinating }
        return nil
    }

    /// An in-memory cache (tests, `inMemoryOnly`).
    convenience init() {
        self.init(settings: CacheSettings(location: .memory))
    }

    /// A cache kept in the file at `path` (not a group's default file), loaded by the first
    /// ``read(_:)``; `durable: false` skips the fsyncs of each write (for measuring the format).
    package convenience init(filePath path: String, durable: Bool = true) {
        var settings = CacheSettings(location: .file(path: path, isDefault: false))
        settings.durable = durable
        self.init(settings: settings)
    }

    /// The cache file's path, when the cache is a file.
    var filePath: String? {
        if case .file(let file) = backend { return file.path }
        return nil
    }

    /// The file processes sharing this cache coordinate around (refresh locks): the cache file,
    /// or the signal file of a ``SignalledCacheStorage``.
    var coordinationPath: String? {
        switch backend {
        case .file(let file): return file.path
        case .custom(_, _, let signal): return signal
        // A shared storage coordinates refreshes itself (``refreshCoordinator``).
        case .memory, .versioned: return nil
        }
    }

    /// The corrupt cache files found since the last call (moved aside as `<file>.corrupt-<time>`,
    /// or left in place when the folder is not writable), for the app or the CLI to tell the
    /// user; each is reported once. A warning is logged as well.
    func takeQuarantines() -> [CacheQuarantine] {
        state.withLock { state in
            defer { state.quarantines = [] }
            return state.quarantines
        }
    }

    /// Runs `body` on the current cache contents.
    package func read<Result>(_ body: (inout TokenStore) throws -> Result) throws -> Result {
        try state.withLock { state in
            try refreshIfNeeded(&state)
            return try body(&state.store)
        }
    }

    /// Runs `body` as one read-modify-write and persists the result. With a file, `body` runs
    /// again on a fresh read when the write has to start over (its lock file was removed).
    package func modify<Result>(_ body: (inout TokenStore) throws -> Result) throws -> Result {
        try state.withLock { state in
            do {
                switch backend {
                case .memory:
                    state.loaded = true
                    return try body(&state.store)
                case .file(let file):
                    let deadline = FileSystem.coarseMonotonicNanoseconds() + Int64(max(0, lockTimeout) * 1e9)
                    while true {
                        let left = Double(deadline - FileSystem.coarseMonotonicNanoseconds()) / 1e9
                        do {
                            return try modifyFile(file, &state, timeout: max(0, left), body)
                        } catch CacheStorageError.lockLost(let path) {
                            // Removed or replaced while held: another writer may have gone
                            // ahead on a new lock file. Start over, reading the file again.
                            state.loaded = false
                            guard FileSystem.coarseMonotonicNanoseconds() < deadline else {
                                throw CacheStorageError.lockLost(path: path)
                            }
                        }
                    }
                case .custom(let storage, let key, let signal):
                    let locks = try signal.map { path throws(CacheStorageError) in
                        do throws(FileError) {
                            try FileSystem.createFolders(FileSystem.folder(of: path), mode: 0o700)
                        } catch {
                            throw FileLock.failure(error, path: path)
                        }
                        return try CacheFileLocks(lockPath: path + ".lock", extensionsFor: path, timeout: lockTimeout)
                    }
                    defer { withExtendedLifetime(locks) {} }
                    try reloadCustom(storage, key: key, signal: signal, &state)
                    let result = try body(&state.store)
                    var bytes = CacheDocument.write(state.store)
                    if let key {
                        bytes = try CacheEncryption.seal(bytes, key: key, for: .storage(storage.cacheIdentity))
                    }
                    do {
                        try storage.save(Data(bytes))
                    } catch {
                        throw CacheStorageError.customStorage(error)
                    }
                    // The storage touched the signal file; under the locks nobody else did since.
                    if let signal { state.fingerprint = FileFingerprint.of(path: signal) }
                    return result
                case .versioned(let storage, let key):
                    return try modifyVersioned(storage, key: key, &state, body)
                }
            } catch let error as CacheStorageError {
                throw error.error
            }
        }
    }

    /// One change of a versioned storage's document: applied to the version held, saved by
    /// compare-and-set, and on a conflict applied again to the newer document
    /// (``VersionedWriteDecision``). Under a refresh lease (``RefreshLeaseScope``) the save is
    /// fenced by it.
    private func modifyVersioned<Result>(
        _ storage: any MSALSharedCacheStorage, key: [UInt8]?, _ state: inout State,
        _ body: (inout TokenStore) throws -> Result
    ) throws -> Result {
        let lease = RefreshLeaseScope.current
        let start = Self.monotonicSeconds()
        var attempt = 1
        while true {
            if !state.loaded { try reloadVersioned(storage, key: key, &state) }
            let result: Result
            var bytes: [UInt8]
            do {
                result = try body(&state.store)
                removeLapsedAccounts(&state, storage)
                bytes = CacheDocument.write(state.store)
                if let key {
                    bytes = try CacheEncryption.seal(bytes, key: key, for: .storage(storage.cacheIdentity))
                }
            } catch {
                // The store may hold part of a change that is not stored: read it again next time.
                state.loaded = false
                throw error
            }
            let outcome: MSALCacheSaveOutcome
            do {
                outcome = try storage.save(Data(bytes), replacingVersion: state.version, lease: lease)
            } catch {
                state.loaded = false
                throw CacheStorageError.customStorage(error)
            }
            let decision = VersionedWriteDecision.decide(
                outcome, attempt: attempt, elapsed: Self.monotonicSeconds() - start, timeout: lockTimeout,
                jitter: Double.random(in: 0..<1))
            switch decision {
            case .done(let version):
                state.version = version
                state.versionCheckedAt = Self.monotonicSeconds()
                return result
            case .reloadAndRetry(let pause):
                state.loaded = false
                attempt += 1
                if pause > 0 { Thread.sleep(forTimeInterval: Double(pause) / 1000) }
            case .giveUp:
                state.loaded = false
                throw CacheStorageError.writeConflicts(attempts: attempt)
            case .dropFenced:
                Log.warning(
                    "Token cache: the refresh lease expired before its result was saved; another holder's newer result is kept"
                )
                state.loaded = false
                return result
            }
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
        _ file: CacheFile, _ state: inout State, timeout: Double, _ body: (inout TokenStore) throws -> Result
    ) throws -> Result {
        let target = try file.writeTarget()
        try file.checkTarget(target)
        try file.checkOwnership(target)
        try file.prepareFolder(for: target)
        let locks = try CacheFileLocks(
            lockPath: CacheFile.lockPath(for: target), extensionsFor: file.path, timeout: timeout)
        defer { withExtendedLifetime(locks) {} }
        if !state.loaded || FileFingerprint.of(path: file.path) != state.fingerprint {
            try reload(file, &state, underLocks: true)
        }
        let result = try body(&state.store)
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
                    // No file (yet, or removed): an empty cache. Reading creates nothing on disk;
                    // the folder and lock file appear with the first write.
                    if state.loaded && state.fingerprint == nil { return }
                    install(TokenStore(), fingerprint: nil, &state)
                    return
                }
                try reload(file, &state, underLocks: false)
            case .custom(let storage, let key, let signal):
                if !state.loaded {
                    try reloadCustom(storage, key: key, signal: signal, &state)
                } else if let signal, FileFingerprint.of(path: signal) != state.fingerprint {
                    // Another process saved (or the signal file went): load the item again.
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
                    let version: UInt64
                    do {
                        version = try storage.storedVersion()
                    } catch {
                        throw CacheStorageError.customStorage(error)
                    }
                    if version == state.version {
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
        case .missing:
            install(TokenStore(), fingerprint: nil, &state)
            return
        case .document(let store, let fingerprint):
            install(store, fingerprint: fingerprint, &state)
            return
        case .emptyFile: seen = .emptyFile
        case .corrupt: seen = .corrupt
        }
        let target = try file.writeTarget()
        let canLock = underLocks || (CacheFile.canWrite(besides: target) && file.mayWriteBeside(target))
        let decision = CacheReadDecision.decide(seen, underLocks: underLocks, canLock: canLock)
        switch (decision, loaded) {
        case (.readAgainUnderLocks, _):
            let locks = try CacheFileLocks(
                lockPath: CacheFile.lockPath(for: target), extensionsFor: file.path, timeout: lockTimeout)
            defer { withExtendedLifetime(locks) {} }
            try reload(file, &state, underLocks: true)
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

    /// Loads a versioned storage's document into the store.
    private func reloadVersioned(_ storage: any MSALSharedCacheStorage, key: [UInt8]?, _ state: inout State) throws {
        let now = Self.monotonicSeconds()
        let document: MSALSharedCacheDocument
        do {
            document = try storage.loadVersioned()
        } catch {
            throw CacheStorageError.customStorage(error)
        }
        try install(document.data, key: key, binding: .storage(storage.cacheIdentity), &state)
        state.version = document.version
        state.versionCheckedAt = now
    }

    /// Loads the storage's document into the store. With a signal file, its fingerprint is taken
    /// first, so that a save after it is seen by the next read.
    private func reloadCustom(
        _ storage: any MSALCacheStorage, key: [UInt8]?, signal: String?, _ state: inout State
    ) throws {
        let fingerprint = signal.flatMap { FileFingerprint.of(path: $0) }
        let data: Data?
        do {
            data = try storage.load()
        } catch {
            throw CacheStorageError.customStorage(error)
        }
        try install(data, key: key, binding: .storage(storage.cacheIdentity), &state)
        state.fingerprint = fingerprint
    }

    /// Decrypts and decodes a document of the app's storage into the store. With a key, only
    /// this library's ciphertext for `binding` (or nothing) is accepted: anyone who can write to
    /// a shared storage could otherwise plant a plaintext document whose tokens would be served,
    /// and whose trace the next save would encrypt away.
    private func install(
        _ data: Data?, key: [UInt8]?, binding: CacheEncryption.Binding, _ state: inout State
    ) throws {
        var bytes = data.map { [UInt8]($0) } ?? []
        if CacheEncryption.isEncrypted(bytes) {
            guard let key, let plaintext = CacheEncryption.open(bytes, key: key, for: binding) else {
                throw CacheStorageError.cannotDecrypt(path: "(custom storage)", keyConfigured: key != nil)
            }
            bytes = plaintext
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
}
