import Foundation
import MSALNative

/// What an application does with the key store of its cache (``MSALCacheKeyStore``) when it is
/// created: a decision from what the store and the cache file hold, then the doing of it.
enum CacheKeyDecision: Equatable {
    /// Use the stored key.
    case use
    /// Make a new random key and keep it in the store (nothing is encrypted yet).
    case create
    /// Stop: the file is encrypted and the store has no key for it. Nothing is touched.
    case refuseKeyGone

    /// What the cache file holds, as far as the key matters.
    enum FileState: Equatable {
        case absent
        case plaintext
        case encrypted
    }

    static func decide(storeHasKey: Bool, file: FileState) -> CacheKeyDecision {
        if storeHasKey { return .use }
        return file == .encrypted ? .refuseKeyGone : .create
    }
}

enum CacheKeyResolution {
    /// The key of `store` for the cache at `location`: loaded, or made and kept while the cache
    /// file's lock is held (so two processes starting at once keep one key), or an error.
    static func key(
        from store: any MSALCacheKeyStore, for location: CacheSettings.Location, lockTimeout: Double
    ) throws -> [UInt8] {
        if let key = try load(store) { return key }
        guard case .file(let path, _) = location else {
            return try create(in: store, file: .absent, path: nil)
        }
        do {
            try FileSystem.createFolders(FileSystem.folder(of: path), mode: 0o700)
        } catch {
            throw CacheStorageError.file(error, "create the cache's folder").error
        }
        // The cache's locks, as a write takes them (this thread blocks: applications are created
        // synchronously).
        var acquisition = CacheFileLocks.Acquisition(ownLockPath: path + ".lock", cachePath: path)
        var wait = LockWait(timeout: lockTimeout, backoff: .fileLock)
        let locks: CacheFileLocks?
        do {
            locks = try wait.blocking { () throws(CacheStorageError) in try acquisition.attempt() }
        } catch {
            throw error.error
        }
        guard let locks else { throw acquisition.timeout(seconds: lockTimeout).error }
        defer { withExtendedLifetime(locks) {} }
        // Another process may have made it while this one waited for the lock.
        if let key = try load(store) { return key }
        return try create(in: store, file: fileState(path), path: path)
    }

    private static func load(_ store: any MSALCacheKeyStore) throws -> [UInt8]? {
        guard let stored = try calling(store, store.loadKey) else { return nil }
        if let problem = CacheKeyCheck.problem([UInt8](stored)) {
            throw CacheStorageError.keyStoreFailed(
                store: store.storeDescription,
                reason: "it holds a key that is not usable: \(problem); it was left untouched"
            ).error
        }
        return [UInt8](stored)
    }

    private static func create(
        in store: any MSALCacheKeyStore, file: CacheKeyDecision.FileState, path: String?
    ) throws -> [UInt8] {
        guard CacheKeyDecision.decide(storeHasKey: false, file: file) == .create else {
            throw CacheStorageError.keyGone(path: path ?? "", store: store.storeDescription).error
        }
        let key = try calling(store) { try SecureRandom.bytes(32) }
        try calling(store) { try store.storeKey(Data(key)) }
        // What the store keeps is what counts (a store may keep the first of two writers').
        return try load(store) ?? key
    }

    /// Runs a call for `store`: an error of MSAL's domain is passed on, any other is the store's failure.
    private static func calling<Result>(_ store: any MSALCacheKeyStore, _ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as NSError where error.domain == MSALErrorDomain {
            throw error
        } catch {
            throw CacheStorageError.keyStoreFailed(store: store.storeDescription, reason: "\(error)").error
        }
    }

    /// Whether the file at `path` is absent, plaintext or encrypted (its first bytes).
    static func fileState(_ path: String) throws -> CacheKeyDecision.FileState {
        let head: [UInt8]?
        do {
            head = try FileSystem.readSmallFile(path, limit: CacheEncryption.header.count)
        } catch {
            throw CacheStorageError.file(error, "read the cache file").error
        }
        guard let head, !head.isEmpty else { return .absent }
        return CacheEncryption.isEncrypted(head) ? .encrypted : .plaintext
    }
}
