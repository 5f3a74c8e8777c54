import Foundation
import MSALSecretService
import XCTest

@testable import MSAL

/// The whole cache as msal-extensions' libsecret item, both ways, with the real msal-extensions
/// from PyPI (`PersistedTokenCache(LibsecretPersistence(signal))`, run by
/// Tests/Interop/msal_extensions_libsecret.py) and a real gnome-keyring-daemon on the private bus.
///
/// Python is the virtualenv scripts/interop.sh makes from Debian's /usr/bin/python3 with
/// --system-site-packages (PyGObject is Debian's python3-gi): `$MSAL_INTEROP_SYSTEM_VENV`, else
/// `.build-interop/venv-system`. Without it the tests skip, or fail when `MSAL_REQUIRE_INTEROP=1`.
final class SecretServiceExtensionsInteropTests: XCTestCase {
    private static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    private static let tenant = "8d2f5e1a-3b4c-4d6e-9f70-a1b2c3d4e5f6"
    private static let clientId = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"

    private var folder: URL!
    private var daemon: KeyringDaemon!
    private var python: String!

    override func setUpWithError() throws {
        python = try Self.requirePython()
        daemon = try KeyringDaemon()
        folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("msal-ext-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        daemon?.stop()
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    private static func requirePython() throws -> String {
        let environment = ProcessInfo.processInfo.environment
        let venv =
            environment["MSAL_INTEROP_SYSTEM_VENV"]
            ?? packageRoot.appendingPathComponent(
                ".build-interop/venv-system"
            ).path
        let python = venv + "/bin/python"
        let check = try? SecretServiceFixture.run(python, ["-c", "import msal_extensions, gi"])
        if check?.status == 0 { return python }
        let problem =
            "msal-extensions with PyGObject is not importable from \(python) (scripts/interop.sh --setup-only "
            + "makes it from /usr/bin/python3 with Debian's python3-gi)"
        if environment["MSAL_REQUIRE_INTEROP"] == "1" {
            throw SecretServiceFixture.FixtureError(problem + "; MSAL_REQUIRE_INTEROP=1 makes this a failure")
        }
        throw XCTSkip(problem)
    }

    private var signal: URL { folder.appendingPathComponent("cache/token_cache.bin") }

    /// Runs msal_extensions_libsecret.py on the private bus and returns the JSON object it prints.
    private func runPython(_ arguments: [String], timeout: Double = 60) throws -> [String: Any] {
        try Self.runPython(python, bus: daemon.bus.address, signal: signal.path, arguments, timeout: timeout)
    }

    private static func runPython(
        _ python: String, bus: String, signal: String, _ arguments: [String], timeout: Double
    ) throws -> [String: Any] {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus
        let script = Self.packageRoot.appendingPathComponent("Tests/Interop/msal_extensions_libsecret.py").path
        let result = try SecretServiceFixture.run(
            python, [script] + arguments + ["--signal", signal], environment: environment, timeout: timeout)
        let line = result.output.split(separator: "\n").last.map(String.init) ?? ""
        guard result.status == 0,
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else {
            throw SecretServiceFixture.FixtureError(
                "msal_extensions_libsecret.py exited \(result.status): \(result.output)")
        }
        return object
    }

    private func application(_ storage: MSALSecretServiceCacheStorage) throws -> MSALPublicClientApplication {
        let configuration = MSALPublicClientApplicationConfig(clientId: Self.clientId)
        configuration.cacheConfig.customStorage = storage
        return try MSALPublicClientApplication(configuration: configuration)
    }

    /// Signs `name` in through the cache as a token response would (no server: the record).
    private func signIn(_ name: String, accessToken: String, cache: TokenCache) throws {
        var record = TokenResponseRecord(
            clientId: Self.clientId, environment: "login.microsoftonline.com", realm: Self.tenant,
            homeAccountId: "uid-\(name).\(Self.tenant)", localAccountId: "uid-\(name)",
            username: "\(name)@contoso.example")
        record.accessToken = accessToken
        record.refreshToken = "rt-" + accessToken
        record.idToken = "id-" + accessToken
        record.scopes = ["User.Read", "openid", "profile", "offline_access"]
        record.cachedAt = Int64(Date().timeIntervalSince1970)
        record.expiresOn = record.cachedAt + 3600
        try cache.modifyBlocking { $0.save(record) }
    }

    /// The access tokens' secrets in the item's document, read through our storage.
    private func accessTokens(_ storage: MSALSecretServiceCacheStorage) throws -> [String] {
        let data = try XCTUnwrap(try storage.load(), "the item exists")
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let tokens = document["AccessToken"] as? [String: [String: Any]] ?? [:]
        return tokens.values.compactMap { $0["secret"] as? String }.sorted()
    }

    func testWhatMSALExtensionsSavesInTheKeyringIsReadHere() throws {
        let written = try runPython(["write", "--account", "alice", "--secret", "at-from-python"])
        XCTAssertEqual(written["home_account_id"] as? String, "uid-alice.\(Self.tenant)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: signal.path), "msal-extensions touched its signal")

        let storage = MSALSecretServiceCacheStorage(signalFileURL: signal)
        XCTAssertEqual(storage.schemaName, MSALSecretServiceCacheStorage.extensionsSchemaName(signalPath: signal.path))
        XCTAssertEqual(storage.attributes, [:])
        let accounts = try application(storage).allAccounts()
        XCTAssertEqual(accounts.map(\.username), ["alice@contoso.example"])
        XCTAssertEqual(accounts.first?.identifier, "uid-alice.\(Self.tenant)")
        XCTAssertEqual(try accessTokens(storage), ["at-from-python"])
    }

    func testWhatWeSaveInTheKeyringIsReadByMSALExtensions() throws {
        let storage = MSALSecretServiceCacheStorage(signalFileURL: signal)
        let cache = TokenCache(settings: CacheSettings(location: .custom(storage), lockTimeout: 10))
        try signIn("bob", accessToken: "at-from-swift", cache: cache)
        XCTAssertTrue(FileManager.default.fileExists(atPath: signal.path), "the save touched the signal")
        XCTAssertFalse(FileManager.default.fileExists(atPath: signal.path + ".lockfile"), "the lock was released")

        let read = try runPython(["read"])
        XCTAssertEqual(read["accounts"] as? [String: String], ["bob@contoso.example": "uid-bob.\(Self.tenant)"])
        XCTAssertEqual(read["access_tokens"] as? [String: [String]], ["uid-bob.\(Self.tenant)": ["at-from-swift"]])

        // And back: Python adds an account to what we wrote; our cache sees it at its next read
        // (the signal file changed) and keeps both.
        _ = try runPython(["write", "--account", "carol", "--secret", "at-carol"])
        XCTAssertEqual(try cache.readBlocking { $0.accounts.count }, 2)
        XCTAssertEqual(try accessTokens(storage), ["at-carol", "at-from-swift"])
    }

    func testAnotherSchemaAndAttributesNameTheSameItemOnBothSides() throws {
        let storage = MSALSecretServiceCacheStorage(
            signalFileURL: signal, schemaName: "com.contoso.TokenCache", attributes: ["app": "contoso", "env": "test"])
        let cache = TokenCache(settings: CacheSettings(location: .custom(storage), lockTimeout: 10))
        try signIn("dave", accessToken: "at-dave", cache: cache)
        let named = ["--schema", "com.contoso.TokenCache", "--attr", "app=contoso", "--attr", "env=test"]
        let read = try runPython(["read"] + named)
        XCTAssertEqual(read["access_tokens"] as? [String: [String]], ["uid-dave.\(Self.tenant)": ["at-dave"]])
        // msal-extensions' default name for this signal is another item: empty.
        let other = try runPython(["read"])
        XCTAssertEqual(other["accounts"] as? [String: String], [:])
    }

    func testWritersOnBothSidesAtOnceLoseNothing() throws {
        let storage = MSALSecretServiceCacheStorage(signalFileURL: signal)
        let cache = TokenCache(settings: CacheSettings(location: .custom(storage), lockTimeout: 30))
        let pythonDone = DispatchSemaphore(value: 0)
        let pythonResult = SecretServiceFixture.Collected()
        let (python, bus, signalPath) = (python!, daemon.bus.address, signal.path)
        let thread = Thread {
            let object = try? Self.runPython(
                python, bus: bus, signal: signalPath,
                ["write", "--account", "py", "--secret", "at-py", "--count", "20"],
                timeout: 120)
            pythonResult.set(Data((object?["home_account_ids"] as? [String] ?? []).joined(separator: ",").utf8))
            pythonDone.signal()
        }
        thread.start()
        // Start once Python's first write is in (its signal touched), so both write at once.
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: signalPath), Date() < deadline { usleep(5_000) }
        for n in 0..<20 {
            try signIn("swift-\(n)", accessToken: "at-swift-\(n)", cache: cache)
        }
        XCTAssertEqual(pythonDone.wait(timeout: .now() + 150), .success)
        XCTAssertEqual(String(decoding: pythonResult.wait(), as: UTF8.self).split(separator: ",").count, 20)

        let read = try runPython(["read"])
        let accounts = read["accounts"] as? [String: String] ?? [:]
        XCTAssertEqual(accounts.count, 40, "every write of both sides is in the item: \(accounts.keys.sorted())")
        XCTAssertEqual(try cache.readBlocking { $0.accounts.count }, 40)
    }

    func testProbeLeavesTheCacheItemAlone() throws {
        _ = try runPython(["write", "--account", "erin", "--secret", "at-erin"])
        let storage = MSALSecretServiceCacheStorage(signalFileURL: signal)
        let before = try storage.load()
        try storage.probe()
        XCTAssertEqual(try storage.load(), before)
        XCTAssertEqual(
            try XCTUnwrap(daemon.secretTool(["search", "--all", "xdg:schema", storage.schemaName + ".Probe"]))
                .output.contains("secret ="), false, "the probe's item was deleted")
    }

    func testALockedKeyringIsAClearErrorAndNoHang() throws {
        _ = try runPython(["write", "--account", "frank", "--secret", "at-frank"])
        try daemon.lockDefaultCollection()
        let storage = MSALSecretServiceCacheStorage(signalFileURL: signal, timeout: 3)
        let started = Date()
        XCTAssertThrowsError(try application(storage).allAccounts()) { error in
            let error = error as NSError
            XCTAssertEqual(error.domain, MSALErrorDomain)
            let text = "\(error.userInfo[MSALErrorDescriptionKey] ?? "") \(error.userInfo[NSUnderlyingErrorKey] ?? "")"
            XCTAssertTrue(text.contains("Secret Service, collection default"), text)
            XCTAssertTrue(text.contains("locked"), text)
            XCTAssertTrue(text.contains("unlock the keyring first"), text)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }
}
