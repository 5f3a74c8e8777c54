import Foundation
import Glibc
import MSALNative
import XCTest

@testable import MSAL

/// A key store holding its key in memory, as an app's own vault would; counts its writes.
private final class MemoryKeyStore: MSALCacheKeyStore, @unchecked Sendable {
    // @unchecked: the stored values are only touched under `lock`.
    private let lock = NSLock()
    private var key: Data?
    private var writes = 0
    private let writeDelay: TimeInterval

    init(key: Data? = nil, writeDelay: TimeInterval = 0) {
        self.key = key
        self.writeDelay = writeDelay
    }

    var storeDescription: String { "test vault" }

    var storedKey: Data? { lock.withLock { key } }
    var storeCount: Int { lock.withLock { writes } }

    func empty() { lock.withLock { key = nil } }

    func loadKey() throws -> Data? { lock.withLock { key } }

    func storeKey(_ key: Data) throws {
        if writeDelay > 0 { Thread.sleep(forTimeInterval: writeDelay) }  // widens a race, if there is one
        lock.withLock {
            self.key = key
            writes += 1
        }
    }
}

final class CacheKeyStoreTests: XCTestCase {
    private var folder: URL!

    override func setUp() {
        folder = CacheFixtures.temporaryFolder()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    private func configuration(_ store: any MSALCacheKeyStore, file: String = "cache.json")
        -> MSALPublicClientApplicationConfig
    {
        let configuration = MSALPublicClientApplicationConfig(clientId: CacheFixtures.clientId)
        configuration.cacheConfig.cacheFileURL = folder.appendingPathComponent(file)
        configuration.cacheConfig.encryptionKeyStore = store
        return configuration
    }

    private func saveOneAccount(key: [UInt8]) throws {
        let cache = TokenCache(
            settings: CacheSettings(
                location: .file(path: folder.appendingPathComponent("cache.json").path, isDefault: false),
                encryptionKey: key))
        try cache.modifyBlocking { $0.save(CacheFixtures.response()) }
    }

    // MARK: - Decisions

    func testTheDecisionTable() {
        XCTAssertEqual(CacheKeyDecision.decide(storeHasKey: true, file: .encrypted), .use)
        XCTAssertEqual(CacheKeyDecision.decide(storeHasKey: true, file: .plaintext), .use)
        XCTAssertEqual(CacheKeyDecision.decide(storeHasKey: true, file: .absent), .use)
        XCTAssertEqual(CacheKeyDecision.decide(storeHasKey: false, file: .absent), .create)
        XCTAssertEqual(CacheKeyDecision.decide(storeHasKey: false, file: .plaintext), .create)
        XCTAssertEqual(CacheKeyDecision.decide(storeHasKey: false, file: .encrypted), .refuseKeyGone)
    }

    func testProvisionedKeyTexts() {
        let key = (0..<32).map { UInt8($0 * 7 + 1) }
        let base64 = Data(key).base64EncodedString()
        XCTAssertEqual(CacheKeyText.key(from: key), key, "raw")
        XCTAssertEqual(CacheKeyText.key(from: Array((base64 + "\n").utf8)), key, "base64 with a line feed")
        XCTAssertEqual(CacheKeyText.key(from: Array(base64.utf8)), key, "base64")
        let url = base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        XCTAssertEqual(CacheKeyText.key(from: Array(url.trimmingCharacters(in: ["="]).utf8)), key, "base64url")
        let hex = key.map { String(format: "%02x", $0) }.joined()
        XCTAssertEqual(CacheKeyText.key(from: Array((hex + "\r\n").utf8)), key, "hex")
        XCTAssertEqual(CacheKeyText.key(from: Array(hex.uppercased().utf8)), key, "HEX")
        XCTAssertNil(CacheKeyText.key(from: Array(key.prefix(31))))
        XCTAssertNil(CacheKeyText.key(from: Array(Data(key.prefix(16)).base64EncodedString().utf8)), "16 bytes")
        XCTAssertNil(CacheKeyText.key(from: Array((base64 + " ").utf8)))
        XCTAssertNil(CacheKeyText.key(from: Array(String(repeating: "g", count: 64).utf8)))
        XCTAssertNil(CacheKeyText.key(from: []))
    }

    // MARK: - Through the application

    func testAStoreWithoutAKeyGetsOneAndTheFileIsEncryptedWithIt() throws {
        let store = MemoryKeyStore()
        _ = try MSALPublicClientApplication(configuration: configuration(store))
        let key = try XCTUnwrap(store.storedKey)
        XCTAssertEqual(key.count, 32)
        XCTAssertEqual(store.storeCount, 1)
        try saveOneAccount(key: [UInt8](key))
        let file = try Data(contentsOf: folder.appendingPathComponent("cache.json"))
        XCTAssertTrue(CacheEncryption.isEncrypted(file), "the file holds no plaintext")
        // The next application finds the key and reads the account.
        let application = try MSALPublicClientApplication(configuration: configuration(store))
        XCTAssertEqual(try application.allAccounts().count, 1)
        XCTAssertEqual(store.storeCount, 1, "the key is made once")
    }

    func testAPlaintextCacheIsKeptAndEncryptedByItsNextChange() throws {
        let path = folder.appendingPathComponent("cache.json").path
        try TokenCache(settings: CacheSettings(location: .file(path: path, isDefault: false))).modifyBlocking {
            $0.save(CacheFixtures.response())
        }
        let store = MemoryKeyStore()
        let application = try MSALPublicClientApplication(configuration: configuration(store))
        XCTAssertEqual(try application.allAccounts().count, 1, "the plaintext accounts are read")
        XCTAssertNotNil(store.storedKey)
    }

    func testAStoreEmptiedUnderAnEncryptedFileFailsAndLeavesTheFileUntouched() throws {
        let store = MemoryKeyStore()
        _ = try MSALPublicClientApplication(configuration: configuration(store))
        try saveOneAccount(key: [UInt8](try XCTUnwrap(store.storedKey)))
        let url = folder.appendingPathComponent("cache.json")
        let before = try Data(contentsOf: url)
        store.empty()  // a reboot, for a kernel keyring
        XCTAssertThrowsError(try MSALPublicClientApplication(configuration: configuration(store))) { error in
            let error = error as NSError
            XCTAssertEqual(error.domain, MSALErrorDomain)
            XCTAssertEqual(error.code, MSALError.internal.rawValue)
            let description = error.userInfo[MSALErrorDescriptionKey] as? String ?? ""
            XCTAssertTrue(description.contains("test vault"), description)
            XCTAssertTrue(description.contains(url.path), description)
        }
        XCTAssertNil(store.storedKey, "no new key replaces the lost one")
        XCTAssertEqual(try Data(contentsOf: url), before, "the file is untouched")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains("corrupt") }, [])
    }

    func testAKeyOfTheWrongLengthIsRefused() throws {
        let store = MemoryKeyStore(key: Data(repeating: 1, count: 16))
        XCTAssertThrowsError(try MSALPublicClientApplication(configuration: configuration(store))) { error in
            let description = (error as NSError).userInfo[MSALErrorDescriptionKey] as? String ?? ""
            XCTAssertTrue(description.contains("16 bytes"), description)
        }
        XCTAssertEqual(store.storedKey?.count, 16, "left as it was")
    }

    func testAnExplicitKeyWinsOverTheStore() throws {
        let store = MemoryKeyStore()
        let configuration = configuration(store)
        configuration.cacheConfig.encryptionKey = Data((0..<32).map { UInt8($0 * 7 + 9) })
        _ = try MSALPublicClientApplication(configuration: configuration)
        XCTAssertNil(store.storedKey, "the store is not asked")
    }

    func testApplicationsCreatedTogetherAgreeOnOneKey() throws {
        let store = MemoryKeyStore(writeDelay: 0.02)
        let keys = Locked([Data]())
        let failures = Locked([String]())
        let file = folder.appendingPathComponent("cache.json")
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            do {
                let configuration = MSALPublicClientApplicationConfig(clientId: CacheFixtures.clientId)
                configuration.cacheConfig.cacheFileURL = file
                configuration.cacheConfig.encryptionKeyStore = store
                _ = try MSALPublicClientApplication(configuration: configuration)
                if let key = store.storedKey { keys.withLock { $0.append(key) } }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [])
        XCTAssertEqual(store.storeCount, 1, "one key made, under the cache file's lock")
        XCTAssertEqual(Set(keys.withLock { $0 }).count, 1)
    }

    // MARK: - systemd credentials

    func testASystemdCredentialIsReadInEachForm() throws {
        let key = (0..<32).map { UInt8(255 - $0) }
        for (index, contents) in [
            key, Array((Data(key).base64EncodedString() + "\n").utf8),
            Array(key.map { String(format: "%02X", $0) }.joined().utf8),
        ].enumerated() {
            let name = "msal-cache-key-\(index)"
            try Data(contents).write(to: folder.appendingPathComponent(name))
            let store = MSALSystemdCredentialKeyStore(credentialName: name, directory: folder.path)
            XCTAssertEqual(try store.loadKey(), Data(key), name)
        }
    }

    func testAServiceWithoutItsCredentialIsToldWhatToAdd() throws {
        let store = MSALSystemdCredentialKeyStore(credentialName: "msal-cache-key", directory: folder.path)
        XCTAssertNil(try store.loadKey())
        XCTAssertThrowsError(try store.probe(), "the probe tells what creating the application would")
        XCTAssertThrowsError(try MSALPublicClientApplication(configuration: configuration(store))) { error in
            let description = (error as NSError).userInfo[MSALErrorDescriptionKey] as? String ?? ""
            XCTAssertTrue(description.contains("LoadCredentialEncrypted=msal-cache-key"), description)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("cache.json").path))
    }

    func testNoCredentialsDirectoryOrABadCredentialIsAClearError() throws {
        let outside = MSALSystemdCredentialKeyStore(credentialName: "msal-cache-key", directory: nil)
        XCTAssertThrowsError(try outside.loadKey()) { error in
            let description = (error as NSError).userInfo[MSALErrorDescriptionKey] as? String ?? ""
            XCTAssertTrue(description.contains("CREDENTIALS_DIRECTORY"), description)
        }
        try Data("not a key".utf8).write(to: folder.appendingPathComponent("bad"))
        XCTAssertThrowsError(
            try MSALSystemdCredentialKeyStore(credentialName: "bad", directory: folder.path).loadKey())
        XCTAssertThrowsError(
            try MSALSystemdCredentialKeyStore(credentialName: "../bad", directory: folder.path).loadKey())
    }

    func testAFIFOInPlaceOfTheCredentialDoesNotBlock() throws {
        let path = folder.appendingPathComponent("fifo").path
        XCTAssertEqual(mkfifo(path, 0o600), 0)
        let store = MSALSystemdCredentialKeyStore(credentialName: "fifo", directory: folder.path)
        // Not a regular file: an error that says so (AdversarialCacheKeyTests), and no wait for a writer.
        XCTAssertThrowsError(try store.loadKey())
    }
}
