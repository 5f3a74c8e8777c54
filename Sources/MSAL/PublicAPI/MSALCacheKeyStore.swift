public import Foundation
import MSALNative

/// A place outside the cache file that keeps the token cache's AES-256-GCM key: a keyring, a
/// service's credential, a vault. Set it on ``MSALCacheConfig/encryptionKeyStore``; the file then
/// holds no plaintext and the key never touches the disk beside it.
///
/// When an application is created the library asks the store for the key. A store that has none
/// is given a new random key (``storeKey(_:)``) while the cache file's lock is held, so two
/// processes starting together agree on one key; a store that keeps none of its own (a systemd
/// credential) throws from ``storeKey(_:)`` instead, and creating the application fails with a
/// message saying what to provision. When the store has no key but the cache file is already
/// encrypted (a keyring emptied by a reboot, another user's session), the file is left untouched
/// and creating the application fails with an error naming the store and the file: accounts are
/// never dropped silently.
///
/// The kernel keyring store is in the `MSALKernelKeyring` product, the desktop keyring (Secret
/// Service) store in the `MSALSecretService` product; ``MSALSystemdCredentialKeyStore`` reads a
/// key that systemd hands to a service.
public protocol MSALCacheKeyStore: AnyObject, Sendable {
    /// The store and the key's name in it, for messages: "kernel keyring @u, key msal:cache".
    var storeDescription: String { get }
    /// The stored key, or `nil` when the store holds none. A key that is not 32 random bytes (of
    /// another length, every byte the same, or fewer than 16 distinct byte values) fails the
    /// application's creation with an error naming the store.
    func loadKey() throws -> Data?
    /// Keeps `key` (32 random bytes), replacing any key of that name.
    func storeKey(_ key: Data) throws
    /// Checks that the store works without touching the cache's key: a store that can keep keys
    /// writes, reads back and deletes a key of another name; a read-only one reads. Throws what
    /// would fail the application's creation. The default reads the key (``loadKey()``).
    func probe() throws
}

extension MSALCacheKeyStore {
    public func probe() throws {
        _ = try loadKey()
    }
}

/// The cache key of a systemd service: a credential that systemd decrypts into
/// `$CREDENTIALS_DIRECTORY/<name>` for the service (`LoadCredentialEncrypted=` or
/// `LoadCredential=` in the unit), readable by the service alone and never written to its disk.
///
/// The credential holds the 32-byte key raw, as base64 or as 64 hexadecimal digits (a trailing
/// line feed is ignored), for example made once with
/// `openssl rand -base64 32 | systemd-creds encrypt --name=msal-cache-key - /etc/credstore.encrypted/msal-cache-key`
/// and loaded with `LoadCredentialEncrypted=msal-cache-key` (systemd 250 and later).
/// The store is read-only: it never makes a key, so a service without the credential fails to
/// create its application with an error saying what to add to the unit.
public final class MSALSystemdCredentialKeyStore: MSALCacheKeyStore {
    /// The credential's name (the file name under `$CREDENTIALS_DIRECTORY`).
    public let credentialName: String
    private let directory: String?

    /// The store of the credential `name` of this service (default `msal-cache-key`).
    public convenience init(credentialName: String = "msal-cache-key") {
        self.init(
            credentialName: credentialName, directory: ProcessInfo.processInfo.environment["CREDENTIALS_DIRECTORY"])
    }

    /// The store of credential `name` in `directory` (what systemd sets as `$CREDENTIALS_DIRECTORY`).
    public init(credentialName: String, directory: String?) {
        self.credentialName = credentialName
        self.directory = directory
    }

    public var storeDescription: String { "systemd credential \(credentialName)" }

    public func loadKey() throws -> Data? {
        guard let directory, directory.hasPrefix("/") else {
            throw CacheStorageError.keyStoreFailed(
                store: storeDescription,
                reason: "$CREDENTIALS_DIRECTORY is not set: this process is not a systemd service with credentials. "
                    + "Add LoadCredentialEncrypted=\(credentialName) to the service's unit"
            ).error
        }
        guard !credentialName.isEmpty, !credentialName.contains("/"), credentialName != ".", credentialName != ".."
        else {
            throw CacheStorageError.keyStoreFailed(
                store: storeDescription, reason: "a credential name is a file name, without '/'"
            ).error
        }
        let path = credentialPath(in: directory)
        let bytes: [UInt8]?
        do {
            bytes = try CacheKeyText.readCredential(path)
        } catch {
            throw CacheStorageError.keyStoreFailed(store: storeDescription, reason: "\(error)").error
        }
        guard let bytes else {
            if case .refuse(let reason) = CredentialPathDecision.decide(path: path) {
                throw CacheStorageError.keyStoreFailed(store: storeDescription, reason: reason).error
            }
            return nil
        }
        guard let key = CacheKeyText.decoded(from: bytes) else {
            throw CacheStorageError.keyStoreFailed(
                store: storeDescription,
                reason: "the credential holds \(bytes.count) bytes that are not a 32-byte key (raw, base64 or hex)"
            ).error
        }
        if let problem = CacheKeyCheck.problem(key) {
            throw CacheStorageError.keyStoreFailed(
                store: storeDescription, reason: "the credential \(path) is not a usable key: \(problem)"
            ).error
        }
        if let mode = exposedMode(path) {
            Log.warning(
                "Token cache: the systemd credential \(credentialName) (\(pii: path)) is readable by its group or other users (mode \(mode)): whoever can read it can decrypt the token cache. Make it readable by the service alone (chmod 0400)."
            )
        }
        return Data(key)
    }

    /// A warning for people when the credential's file can be read by its group or by other users
    /// (its mode allows it): whoever reads it can decrypt the token cache. `nil` when only its
    /// owner can read it, or when there is no credential to read.
    public func exposureWarning() -> String? {
        guard let directory, directory.hasPrefix("/") else { return nil }
        let path = credentialPath(in: directory)
        guard let mode = exposedMode(path) else { return nil }
        return "the systemd credential \(credentialName) (\(path)) is readable by its group or other users "
            + "(mode \(mode)): whoever can read it can decrypt the token cache. Make it readable by the service "
            + "alone (chmod 0400, or LoadCredentialEncrypted=, whose files systemd makes 0400)"
    }

    private func credentialPath(in directory: String) -> String {
        directory.hasSuffix("/") ? directory + credentialName : directory + "/" + credentialName
    }

    /// The mode of the regular file at `path` ("0644") when its group or others may read it.
    private func exposedMode(_ path: String) -> String? {
        guard let status = try? FileSystem.linkStatus(path), status.kind == .regular,
            status.permissions & 0o044 != 0
        else { return nil }
        return "0" + String(status.permissions, radix: 8)
    }

    /// Reads the credential; a service without it fails as its application's creation would.
    public func probe() throws {
        if try loadKey() == nil { try storeKey(Data()) }
    }

    public func storeKey(_ key: Data) throws {
        throw CacheStorageError.keyStoreFailed(
            store: storeDescription,
            reason: "the service has no credential \(credentialName), and a systemd credential is provisioned, "
                + "not made by the app. Create one (openssl rand -base64 32 | systemd-creds encrypt "
                + "--name=\(credentialName) - /etc/credstore.encrypted/\(credentialName)) and add "
                + "LoadCredentialEncrypted=\(credentialName) to the unit"
        ).error
    }
}
