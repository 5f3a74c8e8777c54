import Foundation
import MSAL
@_spi(Testing) import MSALKernelKeyring
import MSALKernelKeyringNative
import XCTest

/// The cache key in the real kernel keyring of this machine: each test works in a keyring of its
/// own (linked into the test process's keyring, so gone with the process), or, for the named
/// keyrings, under a key name of its own that it removes.
final class KernelKeyringKeyStoreTests: XCTestCase {
    private var folder: URL!
    private var keyring: Int32 = 0

    override func setUpWithError() throws {
        folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("msal-keyring-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        keyring = try KernelKeyring.newKeyring("msal-test-\(UUID())")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
        _ = try? KernelKeyring.remove(keyring, from: -2)  // KEY_SPEC_PROCESS_KEYRING
    }

    private func configuration(_ store: MSALKernelKeyringKeyStore) -> MSALPublicClientApplicationConfig {
        let configuration = MSALPublicClientApplicationConfig(clientId: "04b07795-8ddb-461a-bbee-02f9e1bf7b46")
        configuration.cacheConfig.cacheFileURL = folder.appendingPathComponent("msal_cache.json")
        configuration.cacheConfig.encryptionKeyStore = store
        return configuration
    }

    func testKeysAreAddedFoundReadAndRemoved() throws {
        XCTAssertNil(try KernelKeyring.find("absent", in: keyring))
        let payload = (0..<32).map { UInt8($0) }
        let key = try KernelKeyring.add("k", payload: payload, to: keyring)
        XCTAssertEqual(try KernelKeyring.find("k", in: keyring), key)
        XCTAssertEqual(try KernelKeyring.read(key), payload)
        // Adding again under the same name replaces the key in the keyring.
        let replacement = try KernelKeyring.add("k", payload: [1, 2, 3], to: keyring)
        XCTAssertEqual(try KernelKeyring.find("k", in: keyring), replacement)
        XCTAssertEqual(try KernelKeyring.read(replacement), [1, 2, 3])
        XCTAssertNotEqual(replacement, key)
        XCTAssertTrue(try KernelKeyring.remove(replacement, from: keyring))
        XCTAssertNil(try KernelKeyring.find("k", in: keyring))
    }

    func testTheApplicationMakesTheKeyOnceAndFindsItAgain() throws {
        let store = MSALKernelKeyringKeyStore(keyName: "msal:test", keyringSerial: keyring)
        XCTAssertNil(try store.loadKey())
        let first = try MSALPublicClientApplication(configuration: configuration(store))
        let key = try XCTUnwrap(try store.loadKey())
        XCTAssertEqual(key.count, 32)
        XCTAssertEqual(try first.allAccounts().count, 0)
        _ = try MSALPublicClientApplication(configuration: configuration(store))
        XCTAssertEqual(try store.loadKey(), key, "the second application uses the same key")
    }

    func testAKeyGoneUnderAnEncryptedFileFailsAndTheFileIsKept() throws {
        let store = MSALKernelKeyringKeyStore(keyName: "msal:test", keyringSerial: keyring)
        _ = try MSALPublicClientApplication(configuration: configuration(store))
        // An encrypted cache file, as a save with this key leaves it.
        let file = folder.appendingPathComponent("msal_cache.json")
        let encrypted = Data("MSALCACHE".utf8) + Data([0, 1, 1]) + Data(repeating: 7, count: 64)
        try encrypted.write(to: file)
        XCTAssertTrue(try store.removeKey(), "as a reboot would")
        XCTAssertThrowsError(try MSALPublicClientApplication(configuration: configuration(store))) { error in
            let error = error as NSError
            XCTAssertEqual(error.domain, MSALErrorDomain)
            let description = error.userInfo[MSALErrorDescriptionKey] as? String ?? ""
            XCTAssertTrue(description.contains("kernel keyring"), description)
            XCTAssertTrue(description.contains("reboot"), description)
        }
        XCTAssertEqual(try Data(contentsOf: file), encrypted, "left untouched")
        XCTAssertNil(try store.loadKey(), "no new key was made for a file it cannot open")
    }

    func testTheProbeLeavesTheCacheKeyAlone() throws {
        let store = MSALKernelKeyringKeyStore(keyName: "msal:test", keyringSerial: keyring)
        try store.storeKey(Data(repeating: 3, count: 32))
        try store.probe()
        XCTAssertEqual(try store.loadKey(), Data(repeating: 3, count: 32))
        XCTAssertNil(try KernelKeyring.find("msal:test:probe", in: keyring), "the probe's key is gone")
        let missing = MSALKernelKeyringKeyStore(keyName: "msal:test", keyringSerial: 0x7FFF_FFF0)
        XCTAssertThrowsError(try missing.probe()) { error in
            XCTAssertTrue("\(error)".contains("kernel keyring 2147483632"), "\(error)")
        }
    }

    func testAKeyringThatDoesNotExistIsAClearError() throws {
        let store = MSALKernelKeyringKeyStore(keyName: "msal:test", keyringSerial: 0x7FFF_FFF0)
        XCTAssertThrowsError(try MSALPublicClientApplication(configuration: configuration(store))) { error in
            let description = (error as NSError).userInfo[MSALErrorDescriptionKey] as? String ?? ""
            XCTAssertTrue(description.contains("kernel keyring 2147483632"), description)
            XCTAssertTrue(description.contains("errno"), description)
        }
    }

    func testTheSessionAndUserKeyringsHoldTheKey() throws {
        for keyring in [MSALKernelKeyringKeyStore.Keyring.session, .user] {
            let store = MSALKernelKeyringKeyStore(keyName: "msal:test-\(UUID())", keyring: keyring)
            defer { _ = try? store.removeKey() }
            XCTAssertNil(try store.loadKey(), "\(keyring)")
            try store.storeKey(Data(repeating: 5, count: 32))
            XCTAssertEqual(try store.loadKey(), Data(repeating: 5, count: 32), "\(keyring)")
            XCTAssertTrue(try store.removeKey(), "\(keyring)")
            XCTAssertNil(try store.loadKey(), "\(keyring)")
        }
    }
}
