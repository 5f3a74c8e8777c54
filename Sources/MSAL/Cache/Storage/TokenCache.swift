import Foundation
import MSALNative

/// The token cache an application uses: the indexed ``TokenStore`` guarded by a lock, kept in
/// step with its storage (file, memory or the app's storage).
///
/// - ``read(_:)`` serves from memory; with a file it first asks the file's inotify watch
///   whether anything happened to it, then (when something did, or once a second) compares its
///   fingerprint (one `stat`), and re-reads the file only when another process changed it.
/// - ``modify(_:)`` is one read-modify-write: it holds the cross-process file lock, re-reads
///   the file if it changed, applies the change, and writes the file atomically. Two processes saving concurrently therefore never lose each other's tokens.
///
/// Errors thrown are MSAL `NSError`s (``CacheStorageError/error``).
final class TokenCache: Sendable {
    private struct State {
        var store = TokenStore()
        var loaded = false
        var fingerprint: FileFingerprint?
        /// Answers most reads of a file cache without a `stat` (``CacheFileWatch``); made before
        /// each load, so no change after the load can be missed.
        var watch: CacheFileWatch?
        /// Changes whenever the contents may have changed (a reload or a modification), so callers
        /// can keep values derived from the store until then.
        var generation: UInt64 = 0
    }

    private enum Backend {
        case memory
        case file(CacheFile)
        case custom(any MSALCacheStorage, key: [UInt8]?)
    }

    private let backend: Backend
    private let lockTimeout: Double
    private let state = Locked(State())

    init(settings: CacheSettings) {
        lockTimeout = settings.lockTimeout
        switch settings.location {
        case .memory:
            backend = .memory
        case .file(let path, let isDefault):
            backend = .file(
                CacheFile(
                    path: path, ownsFolder: isDefault, encryptionKey: settings.encryptionKey,
                    durable: settings.durable))
        case .custom(let storage):
            backend = .custom(storage, key: settings.encryptionKey)
        }
    }

    /// An in-memory cache (tests, `inMemoryOnly`).
    convenience init() {
        self.init(settings: CacheSettings(location: .memory))
    }

    /// The cache file's path, when the cache is a file.
    var filePath: String? {
        if case .file(let file) = backend { return file.path }
        return nil
    }

    /// Runs `body` on the current cache contents.
    func read<Result>(_ body: (inout TokenStore) throws -> Result) throws -> Result {
        try state.withLock { state in
            try refreshIfNeeded(&state)
            return try body(&state.store)
        }
    }

    /// Runs `body` on the current contents with their ``State/generation``.
    func readVersioned<Result>(_ body: (inout TokenStore, UInt64) throws -> Result) throws -> Result {
        try state.withLock { state in
            try refreshIfNeeded(&state)
            return try body(&state.store, state.generation)
        }
    }

    /// Runs `body` as one read-modify-write and persists the result.
    func modify<Result>(_ body: (inout TokenStore) throws -> Result) throws -> Result {
        try state.withLock { state in
            state.generation &+= 1
            do {
                switch backend {
                case .memory:
                    state.loaded = true
                    return try body(&state.store)
                case .file(let file):
                    try file.prepareFolder()
                    watchIfNeeded(file, &state)
                    let lock = try FileLock(path: file.lockPath, timeout: lockTimeout)
                    defer { withExtendedLifetime(lock) {} }
                    if !state.loaded || FileFingerprint.of(path: file.path) != state.fingerprint {
                        try reload(file, &state)
                    }
                    let result = try body(&state.store)
                    let saved = try file.save(state.store.contents)
                    state.fingerprint = saved.fingerprint
                    if let (snapshot, placements) = saved.placed {
                        state.store.place(in: snapshot, placements)
                    }
                    return result
                case .custom(let storage, let key):
                    try reloadCustom(storage, key: key, &state)
                    let result = try body(&state.store)
                    var bytes = try CacheDocumentCodec.encode(state.store.contents)
                    if let key { bytes = try CacheEncryption.seal(bytes, key: key) }
                    do {
                        try storage.save(Data(bytes))
                    } catch {
                        throw CacheStorageError.customStorage(error)
                    }
                    return result
                }
            } catch let error as CacheStorageError {
                throw error.error
            }
        }
    }

    /// Replaces the whole contents (import, tests) and persists them.
    func replaceAll(with contents: CacheContents) throws {
        try modify { $0 = TokenStore(contents) }
    }

    private func refreshIfNeeded(_ state: inout State) throws {
        do {
            switch backend {
            case .memory:
                state.loaded = true
            case .file(let file):
                if state.loaded, let watch = state.watch, watch.isQuiet() { return }
                let current = FileFingerprint.of(path: file.path)
                if state.loaded && current == state.fingerprint { return }
                if current == nil {
                    // No file (yet, or removed): an empty cache. Reading creates nothing on disk;
                    // the folder and lock file appear with the first write.
                    if state.loaded && state.fingerprint == nil { return }
                    state.store = TokenStore()
                    state.fingerprint = nil
                    state.loaded = true
                    state.generation &+= 1
                    return
                }
                let lock = try FileLock(path: file.lockPath, timeout: lockTimeout)
                defer { withExtendedLifetime(lock) {} }
                try reload(file, &state)
            case .custom(let storage, let key):
                if !state.loaded { try reloadCustom(storage, key: key, &state) }
            }
        } catch let error as CacheStorageError {
            throw error.error
        }
    }

    private func reload(_ file: CacheFile, _ state: inout State) throws {
        watchIfNeeded(file, &state)
        let (contents, fingerprint) = try file.load()
        // Consumed, not copied: the store indexes the arrays in place, which needs one owner.
        Self.discard(replacing: &state.store, with: TokenStore(consume contents))
        state.fingerprint = fingerprint
        state.loaded = true
        state.generation &+= 1
    }

    /// Puts `new` in `store`'s place. A large replaced store is freed on another thread: freeing
    /// ten thousand accounts' entities takes milliseconds the caller need not wait for.
    private static func discard(replacing store: inout TokenStore, with new: consuming TokenStore) {
        var old = new
        swap(&old, &store)
        guard old.entityCount >= 1_000 else { return }
        let replaced = old
        DispatchQueue.global(qos: .utility).async { withExtendedLifetime(replaced) {} }
    }

    /// Makes the file's watch when there is none (or the old one broke). Before a load or a
    /// save: a change made after this is queued on the watch.
    private func watchIfNeeded(_ file: CacheFile, _ state: inout State) {
        if state.watch?.broken == true { state.watch = nil }
        if state.watch == nil { state.watch = CacheFileWatch(path: file.path) }
    }

    private func reloadCustom(_ storage: any MSALCacheStorage, key: [UInt8]?, _ state: inout State) throws {
        let data: Data?
        do {
            data = try storage.load()
        } catch {
            throw CacheStorageError.customStorage(error)
        }
        var bytes = data.map { [UInt8]($0) } ?? []
        if CacheEncryption.isEncrypted(bytes) {
            guard let key, let plaintext = CacheEncryption.open(bytes, key: key) else {
                throw CacheStorageError.cannotDecrypt(path: "(custom storage)", keyConfigured: key != nil)
            }
            bytes = plaintext
        }
        state.generation &+= 1
        do {
            Self.discard(replacing: &state.store, with: TokenStore(try CacheDocumentCodec.decode(bytes)))
        } catch {
            Log.error(
                "Token cache: the custom storage returned a document that is not a valid cache (\(error.reason)); continuing with an empty cache."
            )
            state.store = TokenStore()
        }
        state.loaded = true
    }
}
