import Foundation
import Glibc
import MSAL
import MSALSecretService
import MSALSecretServiceNative
import XCTest

/// The cache key in a real Secret Service: gnome-keyring-daemon on a private session bus
/// (``KeyringDaemon``), a new daemon with a new login keyring for each test.
final class SecretServiceKeyStoreTests: XCTestCase {
    private var folder: URL!
    private var daemon: KeyringDaemon!
    private let cacheName = "msal-test-\(UUID().uuidString.prefix(8))"

    override func setUpWithError() throws {
        folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("msal-secret-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        daemon = try KeyringDaemon()
    }

    override func tearDown() {
        daemon?.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    private func store(timeout: TimeInterval = 5) -> MSALSecretServiceKeyStore {
        MSALSecretServiceKeyStore(cacheName: cacheName, timeout: timeout)
    }

    private func configuration(_ store: MSALSecretServiceKeyStore) -> MSALPublicClientApplicationConfig {
        let configuration = MSALPublicClientApplicationConfig(clientId: "04b07795-8ddb-461a-bbee-02f9e1bf7b46")
        configuration.cacheConfig.cacheFileURL = folder.appendingPathComponent("msal_cache.json")
        configuration.cacheConfig.encryptionKeyStore = store
        return configuration
    }

    /// The description of the error creating an application with `store` fails with (-50000).
    private func creationError(
        _ store: MSALSecretServiceKeyStore, file: StaticString = #filePath, line: UInt = #line
    ) -> String {
        do {
            _ = try MSALPublicClientApplication(configuration: configuration(store))
            XCTFail("the application was created", file: file, line: line)
            return ""
        } catch {
            let error = error as NSError
            XCTAssertEqual(error.domain, MSALErrorDomain, file: file, line: line)
            XCTAssertEqual(error.code, -50000, file: file, line: line)
            let description = error.userInfo[MSALErrorDescriptionKey] as? String ?? ""
            XCTAssertTrue(
                description.contains("Secret Service, collection default"), description, file: file, line: line)
            XCTAssertTrue(description.contains(cacheName), description, file: file, line: line)
            return description
        }
    }

    func testTheApplicationMakesTheKeyOnceAndFindsItAgain() throws {
        let store = store()
        XCTAssertNil(try store.loadKey())
        let first = try MSALPublicClientApplication(configuration: configuration(store))
        let key = try XCTUnwrap(try store.loadKey())
        XCTAssertEqual(key.count, 32)
        XCTAssertEqual(try first.allAccounts().count, 0)
        // A second application (another store object, as another process would have) finds it.
        _ = try MSALPublicClientApplication(configuration: configuration(self.store()))
        XCTAssertEqual(try self.store().loadKey(), key, "the second application uses the same key")
        // A plain Secret Service item: secret-tool finds it by its schema and attributes.
        let lookup = try daemon.secretTool([
            "lookup", "xdg:schema", MSALSecretServiceKeyStore.defaultSchemaName, "cache", cacheName,
        ])
        XCTAssertEqual(lookup.status, 0, lookup.output)
        XCTAssertEqual(lookup.output.trimmingCharacters(in: .whitespacesAndNewlines), key.base64EncodedString())
        let search = try daemon.secretTool(["search", "--all", "cache", cacheName])
        XCTAssertTrue(search.output.contains("label = MSAL token cache key (cache=\(cacheName))"), search.output)
    }

    func testStoringAgainReplacesTheItem() throws {
        let store = store()
        try store.storeKey(Data(repeating: 1, count: 32))
        try store.storeKey(Data(repeating: 2, count: 32))
        XCTAssertEqual(try store.loadKey(), Data(repeating: 2, count: 32))
        XCTAssertTrue(try store.removeKey())
        XCTAssertNil(try store.loadKey(), "one item, now deleted")
        XCTAssertFalse(try store.removeKey())
    }

    func testCustomSchemaAndAttributesNameTheItem() throws {
        let custom = MSALSecretServiceKeyStore(
            schemaName: "com.contoso.Tokens", attributes: ["app": "contoso", "cache": cacheName],
            label: "Contoso cache key")
        try custom.storeKey(Data(repeating: 9, count: 32))
        XCTAssertNil(try store().loadKey(), "another schema is another item")
        XCTAssertEqual(try custom.loadKey(), Data(repeating: 9, count: 32))
        XCTAssertEqual(
            custom.storeDescription,
            "Secret Service, collection default, item com.contoso.Tokens {app=contoso, cache=\(cacheName)}")
        let search = try daemon.secretTool(["search", "--all", "app", "contoso"])
        XCTAssertTrue(search.output.contains("label = Contoso cache key"), search.output)
        XCTAssertTrue(search.output.contains("schema = com.contoso.Tokens"), search.output)
    }

    func testTheProbeLeavesTheCacheKeyAlone() throws {
        let store = store()
        try store.storeKey(Data(repeating: 3, count: 32))
        try store.probe()
        XCTAssertEqual(try store.loadKey(), Data(repeating: 3, count: 32))
        let probes = SecretServiceClient.Item(
            schema: MSALSecretServiceKeyStore.defaultSchemaName + ".Probe", attributes: ["cache": cacheName])
        XCTAssertNil(try SecretServiceClient.lookup(probes, timeout: 5), "the probe's item is gone")
        // Without a key the probe works too, and makes none.
        XCTAssertTrue(try store.removeKey())
        try store.probe()
        XCTAssertNil(try store.loadKey())
    }

    func testALockedCollectionIsAClearErrorAndNoPrompt() throws {
        let store = store()
        try store.storeKey(Data(repeating: 4, count: 32))
        try daemon.lockDefaultCollection()
        XCTAssertTrue(try daemon.defaultCollectionIsLocked())
        let start = Date()
        XCTAssertThrowsError(try store.loadKey()) { error in
            XCTAssertTrue("\(error)".contains("is in a locked collection"), "\(error)")
            XCTAssertTrue("\(error)".contains("never shows: unlock the keyring"), "\(error)")
        }
        XCTAssertThrowsError(try store.storeKey(Data(repeating: 5, count: 32))) { error in
            XCTAssertTrue("\(error)".contains("the collection default is locked"), "\(error)")
        }
        XCTAssertThrowsError(try store.probe()) { error in
            XCTAssertTrue("\(error)".contains("locked"), "\(error)")
        }
        let description = creationError(store)
        XCTAssertTrue(description.contains("locked"), description)
        XCTAssertTrue(description.contains("unlock the keyring first"), description)
        XCTAssertLessThan(Date().timeIntervalSince(start), 5, "answered at once, no deadline reached")
        XCTAssertTrue(try daemon.defaultCollectionIsLocked(), "nothing unlocked it")
        // A new cache (no key yet) in a locked keyring: no key is made.
        let other = MSALSecretServiceKeyStore(cacheName: cacheName + "-other")
        XCTAssertThrowsError(try MSALPublicClientApplication(configuration: configuration(other))) { error in
            let description = (error as NSError).userInfo[MSALErrorDescriptionKey] as? String ?? ""
            XCTAssertTrue(description.contains("the collection default is locked"), description)
        }
    }

    func testNoSecretServiceOnTheBusIsAClearError() throws {
        let store = store()
        try store.storeKey(Data(repeating: 6, count: 32))
        daemon.stop()  // killed before the load
        let start = Date()
        let description = creationError(store)
        XCTAssertLessThan(Date().timeIntervalSince(start), 4)
        XCTAssertTrue(description.contains("no Secret Service runs on the session bus"), description)
        XCTAssertTrue(description.contains("start a keyring daemon"), description)
    }

    func testTheDaemonKilledMidSaveIsAClearError() throws {
        let store = store(timeout: 30)
        daemon.signal(SIGSTOP)
        let outcome = SecretServiceFixture.Collected()
        let saving = Thread {
            do {
                try store.storeKey(Data(repeating: 7, count: 32))
                outcome.set(Data("stored".utf8))
            } catch {
                outcome.set(Data("\(error)".utf8))
            }
        }
        saving.start()
        // Give the save time to send its first call to the stopped daemon, then kill the daemon.
        Thread.sleep(forTimeInterval: 1)
        let killed = Date()
        daemon.signal(SIGKILL)
        let result = String(decoding: outcome.wait(), as: UTF8.self)
        XCTAssertLessThan(Date().timeIntervalSince(killed), 5, "answered when the daemon went, long before 30 s")
        XCTAssertTrue(result.contains("quit or was killed during the call"), result)
    }

    func testAHungDaemonMeetsTheDeadline() throws {
        try store().storeKey(Data(repeating: 8, count: 32))
        daemon.signal(SIGSTOP)
        let store = store(timeout: 1)
        var start = Date()
        XCTAssertThrowsError(try store.loadKey()) { error in
            XCTAssertTrue("\(error)".contains("no answer within 1 s"), "\(error)")
            XCTAssertTrue("\(error)".contains("did not answer in time"), "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 2)
        start = Date()
        let description = creationError(store)
        XCTAssertTrue(description.contains("no answer within 1 s"), description)
        XCTAssertLessThan(Date().timeIntervalSince(start), 3, "the load, and no store: both bounded")
        daemon.signal(SIGCONT)
        XCTAssertEqual(try self.store().loadKey(), Data(repeating: 8, count: 32), "the key is still there")
    }

    func testAKeyGoneUnderAnEncryptedFileFailsAndTheFileIsKept() throws {
        let store = store()
        _ = try MSALPublicClientApplication(configuration: configuration(store))
        let file = folder.appendingPathComponent("msal_cache.json")
        let encrypted = Data("MSALCACHE".utf8) + Data([0, 1, 1]) + Data(repeating: 7, count: 64)
        try encrypted.write(to: file)
        XCTAssertTrue(try store.removeKey(), "as a new keyring would")
        let description = creationError(store)
        XCTAssertTrue(description.contains("holds no key"), description)
        XCTAssertEqual(try Data(contentsOf: file), encrypted, "left untouched")
        XCTAssertNil(try store.loadKey(), "no new key was made for a file it cannot open")
    }

    func testAnItemThatHoldsNoKeyIsAClearError() throws {
        let item = SecretServiceClient.Item(
            schema: MSALSecretServiceKeyStore.defaultSchemaName, attributes: ["cache": cacheName])
        try SecretServiceClient.store(item, secret: "not a key!", label: "x", collection: "default", timeout: 5)
        XCTAssertThrowsError(try store().loadKey()) { error in
            XCTAssertTrue("\(error)".contains("10 bytes of text that are not base64"), "\(error)")
        }
        try SecretServiceClient.store(
            item, secret: Data(repeating: 1, count: 16).base64EncodedString(), label: "x", collection: "default",
            timeout: 5)
        let description = creationError(store())
        XCTAssertTrue(description.contains("16 bytes, not 32"), description)
        XCTAssertEqual(
            try SecretServiceClient.lookup(item, timeout: 5), Data(repeating: 1, count: 16).base64EncodedString(),
            "left untouched")
    }

    func testConfigurationMistakesAreClearErrors() throws {
        let cases: [(MSALSecretServiceKeyStore, String)] = [
            (MSALSecretServiceKeyStore(schemaName: "s", attributes: [:]), "between 1 and 32 attributes"),
            (MSALSecretServiceKeyStore(schemaName: "s", attributes: ["xdg:schema": "t"]), "reserved (xdg:)"),
            (MSALSecretServiceKeyStore(schemaName: "", attributes: ["a": "b"]), "schema name must not be empty"),
            (MSALSecretServiceKeyStore(cacheName: cacheName, timeout: 0), "timeout must be"),
            (MSALSecretServiceKeyStore(cacheName: cacheName, timeout: .infinity), "timeout must be"),
            (
                MSALSecretServiceKeyStore(schemaName: "s", attributes: ["a": "b"], collection: "/org/x"),
                "collection alias"
            ),
            (
                MSALSecretServiceKeyStore(schemaName: "s", attributes: ["a": "b"], collection: "nosuch"),
                "has no collection nosuch"
            ),
        ]
        for (store, expected) in cases {
            XCTAssertThrowsError(try store.storeKey(Data(repeating: 1, count: 32))) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(error)")
            }
        }
    }
}
