public import Foundation
public import MSAL
import MSALNative
import MSALSecretServiceNative

/// The whole token cache as one item of the Secret Service (the desktop keyring), shared with
/// Python apps that use msal-extensions' `LibsecretPersistence` (Azure CLI's and others' choice
/// on Linux desktops): the same item, the same signal file, the same lock file.
///
/// ```swift
/// import MSAL
/// import MSALSecretService
///
/// let signal = URL(fileURLWithPath: NSHomeDirectory() + "/.cache/contoso/token_cache.bin")
/// config.cacheConfig.customStorage = MSALSecretServiceCacheStorage(signalFileURL: signal)
/// ```
///
/// A Python app shares it with
/// `PersistedTokenCache(LibsecretPersistence("/home/me/.cache/contoso/token_cache.bin"))`:
/// the cache document (MSAL's JSON text) is the item's secret, in the `default` collection
/// (the login keyring). msal-extensions names the item by its schema alone, whose name is by
/// default the SHA-256 of the signal file's path (``extensionsSchemaName(signalPath:)``);
/// `LibsecretPersistence(path, schema_name=..., attributes={...})` names another, and so do this
/// type's `schemaName` and `attributes`. Give both sides the same path, written the same way.
///
/// The signal file holds nothing: it is touched after every save, so that other processes know to
/// load the item again (one `stat` per cache read). Each change of the cache holds
/// `<signal>.lockfile` as msal-extensions' `PersistedTokenCache` does (and `<signal>.lock` of this
/// library's own), so neither side loses the other's writes; refreshes of one token are
/// serialised across this library's processes on `<signal>.refresh.lock`.
///
/// Every call to the Secret Service has a deadline (``timeout``) and never prompts: without a
/// session bus, with a locked keyring or a daemon that hangs, the cache calls fail with an error
/// naming the Secret Service and the remedy (`MSALErrorDomain`). Do not also set
/// ``/MSAL/MSALCacheConfig/encryptionKey``: the keyring encrypts the item, and its secret is text.
public final class MSALSecretServiceCacheStorage: MSALCacheStorage, SignalledCacheStorage {
    /// The signal file: touched after each save (made, mode 0600, when missing).
    public let signalFileURL: URL
    /// The item's schema name (its `xdg:schema` attribute).
    public let schemaName: String
    /// The attributes that, with the schema name, name the item (none by default, as in
    /// msal-extensions; at most 32, none starting with `xdg:`).
    public let attributes: [String: String]
    /// The alias of the collection the item is made in: `default` (the login keyring, as
    /// msal-extensions) or `session`.
    public let collection: String
    /// The label the item is shown with in the keyring's user interface.
    public let label: String
    /// The longest a call to the Secret Service may take, in seconds (at most 3600).
    public let timeout: TimeInterval

    /// The schema name msal-extensions' `LibsecretPersistence(signal_location)` uses when given
    /// none: the SHA-256 of `signalPath`, as lowercase hexadecimal.
    public static func extensionsSchemaName(signalPath: String) -> String {
        SHA256.hash(signalPath).map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }.joined()
    }

    /// The storage of the cache item signalled by `signalFileURL`; by default named as
    /// msal-extensions names it for that path (schema ``extensionsSchemaName(signalPath:)``, no
    /// attributes), in the `default` collection.
    public init(
        signalFileURL: URL,
        schemaName: String? = nil,
        attributes: [String: String] = [:],
        collection: String = "default",
        label: String = "MSAL token cache",
        timeout: TimeInterval = MSALSecretServiceKeyStore.defaultTimeout
    ) {
        self.signalFileURL = signalFileURL
        self.schemaName = schemaName ?? Self.extensionsSchemaName(signalPath: signalFileURL.path)
        self.attributes = attributes
        self.collection = collection
        self.label = label
        self.timeout = timeout
    }

    package var signalFilePath: String { signalFileURL.path }

    private var item: SecretServiceClient.Item {
        SecretServiceClient.Item(schema: schemaName, attributes: attributes, mayHaveNoAttributes: true)
    }

    /// Where the cache is, in words: `Secret Service, collection default, item <schema> {...}`.
    public var storageDescription: String {
        "Secret Service, collection \(collection), item \(item)"
    }

    /// The cache document kept in the item, or `nil` when there is no item yet.
    public func load() throws -> Data? {
        do {
            return try SecretServiceClient.lookup(item, timeout: timeout).map { Data($0.utf8) }
        } catch {
            throw SecretServiceKeyStoreError(error, store: storageDescription)
        }
    }

    /// Replaces the item's secret with `data` (text), then touches the signal file.
    public func save(_ data: Data) throws {
        guard let text = String(data: data, encoding: .utf8) else {
            throw SecretServiceKeyStoreError(
                message: "the cache document is not text (was MSALCacheConfig.encryptionKey set? the keyring "
                    + "encrypts the item already; do not set a key with this storage)",
                store: storageDescription)
        }
        do {
            try SecretServiceClient.store(item, secret: text, label: label, collection: collection, timeout: timeout)
        } catch {
            throw SecretServiceKeyStoreError(error, store: storageDescription)
        }
        try touchSignalFile()
    }

    /// Writes, reads back and deletes an item of another schema (``schemaName`` with `.Probe`
    /// appended and a random `probe` attribute) in ``collection``; the cache's item is neither
    /// read nor touched. Throws what a cache call would throw here.
    public func probe() throws {
        try MSALSecretServiceKeyStore(
            schemaName: schemaName, attributes: attributes.isEmpty ? ["cache": "probe"] : attributes,
            collection: collection, timeout: timeout
        ).probe()
    }

    /// Deletes the cache's item (every account in it is then gone); `false` when there was none.
    /// The signal file is touched so that other processes notice.
    @discardableResult
    public func remove() throws -> Bool {
        let removed: Bool
        do {
            removed = try SecretServiceClient.delete(item, timeout: timeout) > 0
        } catch {
            throw SecretServiceKeyStoreError(error, store: storageDescription)
        }
        if removed { try touchSignalFile() }
        return removed
    }

    /// Marks a change: sets the signal file's modification time to now, making it (empty, mode
    /// 0600, in a folder made with mode 0700) when there is none.
    private func touchSignalFile() throws {
        let path = signalFileURL.path
        let manager = FileManager.default
        if manager.fileExists(atPath: path) {
            try manager.setAttributes([.modificationDate: Date()], ofItemAtPath: path)
            return
        }
        try FileSystem.createFolders(FileSystem.folder(of: path), mode: 0o700)
        guard manager.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
    }
}
