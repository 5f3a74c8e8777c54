public import Foundation
import MSALNative

/// Where and how the token cache is kept; `MSALPublicClientApplicationConfig.cacheConfig`.
///
/// By default the cache is the file
/// `$XDG_DATA_HOME/msal/<keychainSharingGroup>/msal_cache.json` (or
/// `~/.local/share/msal/...` when `XDG_DATA_HOME` is unset), mode 0600 in a 0700 folder, in
/// the JSON format MSAL Python, MSAL.NET and Azure CLI use. Applications that name the same
/// ``keychainSharingGroup`` share accounts and single sign-on, as apps sharing a keychain group
/// do on Apple platforms. The file is safe to share between threads and processes: each change
/// holds a lock on `msal_cache.json.lock`, re-reads the file if another process changed it, and
/// replaces it atomically.
///
/// ```swift
/// let config = MSALPublicClientApplicationConfig(clientId: clientId)
/// config.cacheConfig.keychainSharingGroup = "com.contoso.shared"      // share with sibling apps
/// config.cacheConfig.encryptionKey = try loadKeyFromSecretService()  // 32 bytes: AES-256-GCM
/// ```
public final class MSALCacheConfig: @unchecked Sendable {
    // @unchecked: every stored value is behind `values`' lock.
    private struct Values {
        var keychainSharingGroup = MSALCacheConfig.defaultKeychainSharingGroup
        var cacheFileURL: URL?
        var inMemoryOnly = false
        var encryptionKey: Data?
        var encryptionKeyStore: (any MSALCacheKeyStore)?
        /// The key taken from ``encryptionKeyStore`` when an application was created (set on the
        /// application's own copy of the configuration only; never public).
        var resolvedStoreKey: [UInt8]?
        var customStorage: (any MSALCacheStorage)?
        var lockTimeout: TimeInterval = 10
    }

    private let values = Locked(Values())

    /// The default group on Linux, the same as MSAL for macOS.
    public static let defaultKeychainSharingGroup = "com.microsoft.identity.universalstorage"

    /// The sharing group: names the folder of the default cache file. Applications with the same
    /// group share one cache. Default ``defaultKeychainSharingGroup``. Must not contain `/`.
    public var keychainSharingGroup: String {
        get { values.withLock { $0.keychainSharingGroup } }
        set { values.withLock { $0.keychainSharingGroup = newValue } }
    }

    /// A cache file to use instead of the default one (its folder is created with mode 0700 when
    /// missing). Takes precedence over ``keychainSharingGroup``. Default `nil`.
    public var cacheFileURL: URL? {
        get { values.withLock { $0.cacheFileURL } }
        set { values.withLock { $0.cacheFileURL = newValue } }
    }

    /// Keep the cache in memory only: nothing is read from or written to disk, and the cache ends
    /// with the application object. Default `false`.
    public var inMemoryOnly: Bool {
        get { values.withLock { $0.inMemoryOnly } }
        set { values.withLock { $0.inMemoryOnly = newValue } }
    }

    /// A 32-byte key: the file (or custom storage document) is then encrypted with AES-256-GCM,
    /// holding no plaintext. A file that does not open with this key is left untouched and the
    /// cache calls fail with an error that says so. A plaintext file found while a key is set is
    /// read and re-written encrypted on the next change. Default `nil` (plaintext, like MSAL
    /// Python; the file's permissions protect it). A key that is not 32 random bytes (every byte
    /// the same, as in `Data(count: 32)`, or fewer than 16 distinct byte values) fails the
    /// application's creation.
    public var encryptionKey: Data? {
        get { values.withLock { $0.encryptionKey } }
        set { values.withLock { $0.encryptionKey = newValue } }
    }

    /// Where the cache's key is kept when ``encryptionKey`` is `nil`: a keyring, a service
    /// credential (see ``MSALCacheKeyStore``). When an application is created the key is read from
    /// it, or made and kept there for a cache that has none yet; the file is then encrypted as
    /// with ``encryptionKey``. Default `nil`.
    public var encryptionKeyStore: (any MSALCacheKeyStore)? {
        get { values.withLock { $0.encryptionKeyStore } }
        set { values.withLock { $0.encryptionKeyStore = newValue } }
    }

    /// Reads (or makes) the key of ``encryptionKeyStore`` for this configuration's cache, when
    /// no ``encryptionKey`` is set; done once when an application is created, on its own copy.
    func resolveStoreKey() throws {
        let values = values.withLock { $0 }
        guard values.encryptionKey == nil, let store = values.encryptionKeyStore, !values.inMemoryOnly else { return }
        let key = try CacheKeyResolution.key(from: store, for: settings().location, lockTimeout: values.lockTimeout)
        self.values.withLock { $0.resolvedStoreKey = key }
    }

    /// Storage that the app provides (see ``MSALCacheStorage``); takes precedence over the file
    /// options. Default `nil`.
    public var customStorage: (any MSALCacheStorage)? {
        get { values.withLock { $0.customStorage } }
        set { values.withLock { $0.customStorage = newValue } }
    }

    /// How long a change waits for another process's lock on the cache file before failing with
    /// an error. Default 10 seconds.
    public var lockTimeout: TimeInterval {
        get { values.withLock { $0.lockTimeout } }
        set { values.withLock { $0.lockTimeout = newValue } }
    }

    /// A configuration with the defaults.
    public init() {}

    /// A copy with the same settings (the custom storage object is shared).
    func copy() -> MSALCacheConfig {
        let copy = MSALCacheConfig()
        let snapshot = values.withLock { $0 }
        copy.values.withLock { $0 = snapshot }
        return copy
    }

    /// A configuration using `keychainSharingGroup`.
    public convenience init(keychainSharingGroup: String) {
        self.init()
        self.keychainSharingGroup = keychainSharingGroup
    }

    /// The cache file this configuration uses: ``cacheFileURL``, else the default file of the
    /// group; `nil` when the cache is in memory or in custom storage.
    public var resolvedCacheFileURL: URL? {
        if inMemoryOnly || customStorage != nil { return nil }
        return cacheFileURL ?? Self.defaultCacheFileURL(keychainSharingGroup: keychainSharingGroup)
    }

    /// `$XDG_DATA_HOME/msal/<group>/msal_cache.json`, or under `~/.local/share` when
    /// `XDG_DATA_HOME` is unset or not absolute (XDG Base Directory specification).
    public static func defaultCacheFileURL(keychainSharingGroup: String) -> URL {
        let environment = ProcessInfo.processInfo.environment
        let base: URL
        if let dataHome = environment["XDG_DATA_HOME"], dataHome.hasPrefix("/") {
            base = URL(fileURLWithPath: dataHome, isDirectory: true)
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            base = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(
                ".local/share", isDirectory: true)
        }
        let group = keychainSharingGroup.isEmpty ? defaultKeychainSharingGroup : keychainSharingGroup
        return base.appendingPathComponent("msal", isDirectory: true)
            .appendingPathComponent(group.replacingOccurrences(of: "/", with: "_"), isDirectory: true)
            .appendingPathComponent("msal_cache.json")
    }

    /// A snapshot of the settings, taken when an application is created.
    func settings() -> CacheSettings {
        let values = values.withLock { $0 }
        let location: CacheSettings.Location
        if let customStorage = values.customStorage {
            location = .custom(customStorage)
        } else if values.inMemoryOnly {
            location = .memory
        } else {
            let url =
                values.cacheFileURL ?? Self.defaultCacheFileURL(keychainSharingGroup: values.keychainSharingGroup)
            location = .file(path: url.path, isDefault: values.cacheFileURL == nil)
        }
        return CacheSettings(
            location: location, encryptionKey: values.encryptionKey.map { [UInt8]($0) } ?? values.resolvedStoreKey,
            lockTimeout: values.lockTimeout)
    }
}
