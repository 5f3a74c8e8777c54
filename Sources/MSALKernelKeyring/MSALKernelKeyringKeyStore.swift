public import Foundation
public import MSAL
import MSALKernelKeyringNative

/// The token cache's key in the Linux kernel keyring: for headless machines, SSH sessions and
/// containers, where no desktop keyring (Secret Service) runs. The key never touches the disk;
/// the cache file holds only ciphertext.
///
/// What survives what: the kernel keeps keys in memory only, so **no keyring survives a reboot**;
/// after one, creating the application fails with an error saying the key is gone (the file is
/// left untouched), and the user signs in again after removing the file. Between reboots:
///
/// | keyring | shared by | ends when |
/// | --- | --- | --- |
/// | ``Keyring/session`` | the processes of one login session | the session ends |
/// | ``Keyring/user`` (default) | every process of this user id | the user's last process ends |
/// | ``Keyring/persistent`` | every process of this user id | unused for three days (the kernel's `persistent_keyring_expiry`) |
///
/// ```swift
/// import MSAL
/// import MSALKernelKeyring
///
/// let config = MSALPublicClientApplicationConfig(clientId: clientId)
/// config.cacheConfig.encryptionKeyStore = MSALKernelKeyringKeyStore(keyring: .persistent)
/// ```
///
/// The key is a `user` key named ``keyName`` (by default `msal:` and the default sharing group),
/// readable by the processes of this user id that can reach its keyring, as a file of mode 0600
/// is by the user's processes. A process that cannot reach it (a `cron` job outside the user's
/// sessions with the session keyring) sees no key and is told so: choose the user or persistent
/// keyring for such processes, or a systemd credential for services
/// (``/MSAL/MSALSystemdCredentialKeyStore``).
public final class MSALKernelKeyringKeyStore: MSALCacheKeyStore {
    /// Which of the user's keyrings holds the key.
    public enum Keyring: Sendable, Equatable {
        /// The login session's keyring.
        case session
        /// The user id's keyring.
        case user
        /// The user id's persistent keyring (a kernel built with persistent keyrings).
        case persistent
    }

    /// The key's name (its description in the keyring).
    public let keyName: String
    private let place: KernelKeyring.Place

    /// The store of the key `keyName` in `keyring`.
    public init(keyName: String = "msal:" + MSALCacheConfig.defaultKeychainSharingGroup, keyring: Keyring = .user) {
        self.keyName = keyName
        switch keyring {
        case .session: place = .session
        case .user: place = .user
        case .persistent: place = .persistent
        }
    }

    /// The store of the key `keyName` in the keyring whose serial number is `serial` (a test's
    /// own keyring, made with `KernelKeyring.newKeyring`).
    @_spi(Testing)
    public init(keyName: String, keyringSerial serial: Int32) {
        self.keyName = keyName
        place = .serial(serial)
    }

    /// Where the key is kept, in words: `kernel keyring @u (user), key msal:...`.
    public var storeDescription: String {
        let keyring: String
        switch place {
        case .session: keyring = "@s (session)"
        case .user: keyring = "@u (user)"
        case .persistent: keyring = "persistent"
        case .serial(let serial): keyring = "\(serial)"
        }
        return "kernel keyring \(keyring), key \(keyName)"
    }

    /// The payload of the key named ``keyName`` in the keyring, or `nil` when there is none there.
    public func loadKey() throws -> Data? {
        do {
            let keyring = try KernelKeyring.keyring(place)
            guard let key = try KernelKeyring.find(keyName, in: keyring) else { return nil }
            return Data(try KernelKeyring.read(key))
        } catch {
            throw KernelKeyringError(error, store: storeDescription)
        }
    }

    /// Adds `key` to the keyring as the `user` key named ``keyName``, replacing a key of that name
    /// there.
    public func storeKey(_ key: Data) throws {
        do {
            _ = try KernelKeyring.add(keyName, payload: [UInt8](key), to: try KernelKeyring.keyring(place))
        } catch {
            throw KernelKeyringError(error, store: storeDescription)
        }
    }

    /// Adds a key of another name (`<keyName>:probe`) to the keyring, reads it back and removes
    /// it: the cache's key is not touched.
    public func probe() throws {
        let name = keyName + ":probe"
        let payload = Array("probe".utf8)
        do {
            let keyring = try KernelKeyring.keyring(place)
            _ = try KernelKeyring.add(name, payload: payload, to: keyring)
            guard let key = try KernelKeyring.find(name, in: keyring) else {
                throw KernelKeyringError(
                    message: "a key just added to the keyring is not found in it", store: storeDescription)
            }
            let read = try KernelKeyring.read(key)
            try KernelKeyring.remove(key, from: keyring)
            guard read == payload else {
                throw KernelKeyringError(message: "a key read back differs from the one added", store: storeDescription)
            }
        } catch let error as KernelKeyringError {
            throw error
        } catch {
            throw KernelKeyringError(error, store: storeDescription)
        }
    }

    /// Removes the key from its keyring (the cache file encrypted with it can no longer be read);
    /// `false` when there was none.
    @discardableResult
    public func removeKey() throws -> Bool {
        do {
            let keyring = try KernelKeyring.keyring(place)
            guard let key = try KernelKeyring.find(keyName, in: keyring) else { return false }
            return try KernelKeyring.remove(key, from: keyring)
        } catch {
            throw KernelKeyringError(error, store: storeDescription)
        }
    }
}

/// A failed kernel keyring call, with what to do about it.
struct KernelKeyringError: Error, CustomStringConvertible {
    let description: String

    init(message: String, store: String) {
        description = "\(store): \(message)"
    }

    init(_ error: any Error, store: String) {
        guard let failure = error as? KernelKeyring.Failure else {
            description = "\(store): \(error)"
            return
        }
        var text = "\(store): \(failure)"
        if failure.isLibraryMissing {
            text += "; install libkeyutils (Debian and Ubuntu: libkeyutils1) or choose another key store"
        } else if failure.isUnsupported {
            text += "; this kernel (or container) offers no such keyring: choose another keyring or key store"
        } else if failure.isDenied {
            text += "; this process may not use that keyring (a container's seccomp profile, or another user's key)"
        } else if failure.isQuotaFull {
            text += "; the user's key quota is full (see /proc/key-users)"
        }
        description = text
    }
}
