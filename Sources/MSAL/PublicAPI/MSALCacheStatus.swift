public import Foundation

/// Where a configuration keeps its token cache, and which key stores would work here: what
/// `msal doctor` prints, and what an app can show its user when tokens cannot be kept safely.
///
/// ```swift
/// let status = MSALCacheStatus.check(config.cacheConfig, candidates: [
///     MSALSecretServiceKeyStore(), MSALKernelKeyringKeyStore(), MSALSystemdCredentialKeyStore(),
/// ])
/// for candidate in status.candidates where !candidate.isAvailable {
///     print("\(candidate.storeDescription): \(candidate.problem ?? "")")
/// }
/// ```
///
/// Each candidate is tried with its ``MSALCacheKeyStore/probe()``, which never reads or changes
/// the cache's key or the cache file: a keyring store writes, reads back and deletes an item of
/// another name. Probes make calls to the stores (with their own deadlines), so checking takes
/// as long as they do.
public struct MSALCacheStatus: Sendable {
    /// How the configuration keeps the cache.
    public enum Storage: String, Sendable {
        /// Nothing persisted (`inMemoryOnly`).
        case memory
        /// The plaintext file: protected by its mode (0600) only.
        case plaintextFile
        /// The file, encrypted with the app's ``MSALCacheConfig/encryptionKey``.
        case encryptedFileWithKey
        /// The file, encrypted with the key of ``MSALCacheConfig/encryptionKeyStore``.
        case encryptedFileWithKeyStore
        /// The app's ``MSALCacheConfig/customStorage``.
        case customStorage
    }

    /// One key store tried: whether it works here, and if not why and what to do.
    public struct Candidate: Sendable {
        /// The store in words (``MSALCacheKeyStore/storeDescription``).
        public let storeDescription: String
        /// Whether its probe succeeded.
        public let isAvailable: Bool
        /// Why it does not work here, with the remedy (the probe's error); `nil` when it works.
        public let problem: String?
        /// Whether the configuration uses it (``MSALCacheConfig/encryptionKeyStore`` is this object).
        public let isActive: Bool
    }

    /// How the cache is kept.
    public let storage: Storage
    /// The cache file, when the cache is a file.
    public let cacheFileURL: URL?
    /// The candidates, in the order given, each probed.
    public let candidates: [Candidate]
    /// What the user can do, in words; `nil` when nothing needs doing.
    public let advice: String?

    /// Probes `candidates` (and the configuration's own key store, when it has one and it is not
    /// among them) and says how `config` keeps the cache.
    public static func check(_ config: MSALCacheConfig, candidates: [any MSALCacheKeyStore] = []) -> MSALCacheStatus {
        var stores = candidates
        let active = config.encryptionKeyStore
        if let active, !stores.contains(where: { $0 === active }) { stores.insert(active, at: 0) }
        let probed = stores.map { store in
            let problem: String?
            do {
                try store.probe()
                problem = nil
            } catch {
                problem = Self.describe(error)
            }
            return Candidate(
                storeDescription: store.storeDescription, isAvailable: problem == nil, problem: problem,
                isActive: store === active)
        }
        let storage: Storage
        if config.customStorage != nil {
            storage = .customStorage
        } else if config.inMemoryOnly {
            storage = .memory
        } else if config.encryptionKey != nil {
            storage = .encryptedFileWithKey
        } else if active != nil {
            storage = .encryptedFileWithKeyStore
        } else {
            storage = .plaintextFile
        }
        return MSALCacheStatus(
            storage: storage, cacheFileURL: config.resolvedCacheFileURL, candidates: probed,
            advice: Self.advice(storage, probed))
    }

    /// The advice for `storage` given what was found: a plaintext file with a working store says
    /// which to choose; one without says what the file's mode protects against.
    static func advice(_ storage: Storage, _ candidates: [Candidate]) -> String? {
        switch storage {
        case .plaintextFile:
            if let usable = candidates.first(where: \.isAvailable) {
                return "the cache file is plaintext, readable by every process of this user: keep its key in "
                    + "\(usable.storeDescription) (cacheConfig.encryptionKeyStore) instead"
            }
            return "the cache file is plaintext, readable by every process of this user and by its backups; "
                + "no key store works here (see why above): choose one that can (Docs/TokenCache.md, "
                + "\"Which storage to use\"), or keep the file on storage only this user reaches"
        case .encryptedFileWithKeyStore:
            if let active = candidates.first(where: \.isActive), !active.isAvailable {
                return "the key store in use does not work here, so the cache cannot be opened: "
                    + (active.problem ?? "")
            }
            return nil
        case .memory, .encryptedFileWithKey, .customStorage:
            return nil
        }
    }

    /// An error's description, MSAL's own (`MSALErrorDescriptionKey`) when it has one.
    private static func describe(_ error: any Error) -> String {
        let bridged = error as NSError
        if let text = bridged.userInfo[MSALErrorDescriptionKey] as? String { return text }
        return "\(error)"
    }
}
