public import Foundation
public import MSAL
import MSALSecretServiceNative

/// The token cache's key in the desktop keyring: an item of the Secret Service (GNOME Keyring,
/// KeePassXC or KWallet's Secret Service bridge) on the user's D-Bus session bus, through
/// libsecret. For desktop sessions, where the keyring is unlocked at login; the key never touches
/// the disk unencrypted, and the cache file holds only ciphertext.
///
/// ```swift
/// import MSAL
/// import MSALSecretService
///
/// let config = MSALPublicClientApplicationConfig(clientId: clientId)
/// config.cacheConfig.encryptionKeyStore = MSALSecretServiceKeyStore()
/// ```
///
/// The key is kept as base64 text in an item of schema ``defaultSchemaName`` whose attribute
/// `cache` names the cache (by default the default sharing group), in the `default` collection
/// (the login keyring). Schema, attributes, collection and label are all configurable.
///
/// Every call to the Secret Service has a deadline (``timeout``, five seconds by default), and
/// none ever asks the user anything: without a session bus (an SSH login, a container, a
/// service), without a keyring daemon, with a locked keyring, or with a daemon that stops
/// answering or quits during a call, the store throws an error saying what happened and what to
/// do, and creating the application fails with it (`MSALErrorDomain`, -50000). Choose
/// `MSALKernelKeyringKeyStore` (the `MSALKernelKeyring` product) or
/// ``/MSAL/MSALSystemdCredentialKeyStore`` where no desktop session runs.
public final class MSALSecretServiceKeyStore: MSALCacheKeyStore {
    /// The schema of the cache key's item unless another is given: `org.swift-msal.CacheKey`.
    public static let defaultSchemaName = "org.swift-msal.CacheKey"
    /// The deadline of each call unless another is given: 5 seconds.
    public static let defaultTimeout: TimeInterval = 5

    /// The item's schema name (libsecret keeps it as the item's `xdg:schema` attribute).
    public let schemaName: String
    /// The attributes that name the item; the item found is one that has all of them.
    public let attributes: [String: String]
    /// The alias of the collection new items are made in: `default` (the login keyring) or
    /// `session` (in memory, gone at logout). An existing item is found in any collection.
    public let collection: String
    /// The label the item is shown with in the keyring's user interface.
    public let label: String
    /// The longest a call to the Secret Service may take, in seconds (at most 3600).
    public let timeout: TimeInterval

    /// The store of the key of the cache named `cacheName` (by default the default sharing
    /// group, as the cache file is): schema ``defaultSchemaName``, attribute `cache`.
    public convenience init(
        cacheName: String = MSALCacheConfig.defaultKeychainSharingGroup, timeout: TimeInterval = defaultTimeout
    ) {
        self.init(schemaName: Self.defaultSchemaName, attributes: ["cache": cacheName], timeout: timeout)
    }

    /// The store of the key kept in the item of schema `schemaName` with `attributes` (between 1
    /// and 32, none starting with `xdg:`), made in the collection `collection` with `label` (by
    /// default one naming the attributes). Mistakes in these are reported by the calls.
    public init(
        schemaName: String,
        attributes: [String: String],
        collection: String = "default",
        label: String? = nil,
        timeout: TimeInterval = defaultTimeout
    ) {
        self.schemaName = schemaName
        self.attributes = attributes
        self.collection = collection
        self.timeout = timeout
        let item = SecretServiceClient.Item(schema: schemaName, attributes: attributes)
        self.label = label ?? "MSAL token cache key (\(Self.attributeList(item)))"
    }

    /// Where the key is kept, in words: `Secret Service, collection default, item <schema> {cache=...}`.
    public var storeDescription: String {
        "Secret Service, collection \(collection), item \(item)"
    }

    private var item: SecretServiceClient.Item {
        SecretServiceClient.Item(schema: schemaName, attributes: attributes)
    }

    /// The key kept in the item as base64 text, or `nil` when there is no such item. Throws when
    /// the Secret Service cannot answer within ``timeout`` or the item's text is not base64.
    public func loadKey() throws -> Data? {
        let text: String?
        do {
            text = try SecretServiceClient.lookup(item, timeout: timeout)
        } catch {
            throw SecretServiceKeyStoreError(error, store: storeDescription)
        }
        guard let text else { return nil }
        guard let key = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw SecretServiceKeyStoreError(
                message: "the item holds \(text.utf8.count) bytes of text that are not base64; it was left untouched",
                store: storeDescription)
        }
        return key
    }

    /// Keeps `key` as base64 text in the item (replaced when there is one, made in ``collection``
    /// with ``label`` otherwise).
    public func storeKey(_ key: Data) throws {
        do {
            try SecretServiceClient.store(
                item, secret: key.base64EncodedString(), label: label, collection: collection, timeout: timeout)
        } catch {
            throw SecretServiceKeyStoreError(error, store: storeDescription)
        }
    }

    /// Makes an item of another schema (``schemaName`` with `.Probe` appended, the same
    /// attributes and a random `probe` attribute) in ``collection``, reads it back and deletes
    /// it: the cache's key is neither read nor touched. Each of the three calls has the deadline.
    public func probe() throws {
        var attributes = self.attributes
        attributes["probe"] = UUID().uuidString
        let probe = SecretServiceClient.Item(schema: schemaName + ".Probe", attributes: attributes)
        let text = "probe " + UUID().uuidString
        do {
            try SecretServiceClient.store(
                probe, secret: text, label: "MSAL key store probe", collection: collection, timeout: timeout)
            let read: String?
            do {
                read = try SecretServiceClient.lookup(probe, timeout: timeout)
            } catch {
                _ = try? SecretServiceClient.delete(probe, timeout: timeout)
                throw error
            }
            let deleted = try SecretServiceClient.delete(probe, timeout: timeout)
            guard read == text else {
                throw SecretServiceKeyStoreError(
                    message: read == nil
                        ? "an item just stored is not found" : "an item read back differs from the one stored",
                    store: storeDescription)
            }
            guard deleted == 1 else {
                throw SecretServiceKeyStoreError(
                    message: "deleting the probe's item deleted \(deleted) items", store: storeDescription)
            }
        } catch let error as SecretServiceKeyStoreError {
            throw error
        } catch {
            throw SecretServiceKeyStoreError(error, store: storeDescription)
        }
    }

    /// Deletes the key's item (a cache file encrypted with it can no longer be read); `false`
    /// when there was none.
    @discardableResult
    public func removeKey() throws -> Bool {
        do {
            return try SecretServiceClient.delete(item, timeout: timeout) > 0
        } catch {
            throw SecretServiceKeyStoreError(error, store: storeDescription)
        }
    }

    private static func attributeList(_ item: SecretServiceClient.Item) -> String {
        item.attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
    }
}

/// A failed Secret Service call, with what to do about it.
struct SecretServiceKeyStoreError: Error, CustomStringConvertible, LocalizedError {
    let description: String

    var errorDescription: String? { description }

    init(message: String, store: String) {
        description = "\(store): \(SecretServiceClient.printable(message))"
    }

    init(_ error: any Error, store: String) {
        guard let failure = error as? SecretServiceClient.Failure else {
            description = "\(store): \(SecretServiceClient.printable("\(error)"))"
            return
        }
        description = "\(store): \(failure.detail); \(Self.remedy(failure.kind))"
    }

    /// What the user can do about a failure of `kind`.
    static func remedy(_ kind: SecretServiceClient.Failure.Kind) -> String {
        switch kind {
        case .noBus:
            return "there is no D-Bus session bus here (DBUS_SESSION_BUS_ADDRESS is unset or points nowhere, as in "
                + "an SSH login, a container or a service): use the kernel keyring (MSALKernelKeyring) or a "
                + "systemd credential there, or run the app in a desktop session"
        case .busClosed:
            return "the session bus has gone (a logout): start the application again in a running session"
        case .noService:
            return "no Secret Service runs on the session bus: start a keyring daemon (gnome-keyring-daemon, "
                + "KeePassXC with its Secret Service integration) or choose another key store"
        case .serviceQuit:
            return "the keyring daemon quit or was killed during the call: start it again and retry"
        case .locked:
            return "unlocking needs a password prompt, which this library never shows: unlock the keyring first "
                + "(log in to the desktop session, or unlock it in the keyring's manager such as Passwords and "
                + "Keys) and retry"
        case .noCollection:
            return "create the keyring first (the keyring's manager creates the login keyring) or choose an "
                + "existing collection alias"
        case .timedOut:
            return "the keyring daemon did not answer in time (hung, or waiting for a prompt on the screen): "
                + "check it, or give the store a longer timeout"
        case .denied:
            return "the bus or the daemon refused the call (a sandbox's or the bus's policy): allow "
                + "org.freedesktop.secrets, or choose another key store"
        case .invalid:
            return "correct the store's configuration"
        case .noLibrary:
            return "libsecret is not installed here (Debian and Ubuntu: libsecret-1-0): install it, or use the "
                + "kernel keyring (MSALKernelKeyring) or a systemd credential"
        case .failed:
            return "check the keyring daemon, or choose another key store"
        }
    }
}
