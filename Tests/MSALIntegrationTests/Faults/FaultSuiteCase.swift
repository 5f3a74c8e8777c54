import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// The base of the fault and load suite (every class named `Fault...`; run them alone with
/// `swift test --filter Fault`). Each case gets an emulator and an application whose cache is a
/// real file, and every case is checked three ways: the error the app sees, the requests the
/// emulator saw, and the cache file. Every log line the library writes during a case (verbose,
/// PII off) is captured, and tearDown fails the case if one of them holds a token, code, refresh
/// token, code verifier or password that the case produced.
class FaultSuiteCase: XCTestCase {
    var emulator: EntraEmulator!
    var app: EmulatedApp!
    private var directory: TemporaryDirectory?
    var folder: URL! { directory?.url }
    var cacheFile: URL { folder.appendingPathComponent("cache.json") }
    /// Secrets the case knows about beyond those in the cache file and the emulator's request log
    /// (tokens from results, a password typed in).
    private let extraSecrets = Locked<Set<String>>([])
    private let logLines = Locked<[String]>([])

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
        emulator = try EmulatedApp.makeEmulator()
        app = try makeApp()
        MSALGlobalConfig.httpConfig.retryInterval = 0.01
        let lines = logLines
        MSALGlobalConfig.loggerConfig.logLevel = .verbose
        MSALGlobalConfig.loggerConfig.piiEnabled = false
        MSALGlobalConfig.loggerConfig.setLogCallback { _, message, _ in
            if let message { lines.withLock { $0.append(message) } }
        }
    }

    override func tearDownWithError() throws {
        MSALGlobalConfig.loggerConfig.removeLogCallback()
        MSALGlobalConfig.loggerConfig.logLevel = .info
        MSALGlobalConfig.httpConfig.retryInterval = 0.5
        MSALGlobalConfig.httpConfig.timeoutIntervalForRequest = 300
        defer {
            emulator?.stop()
            directory?.cleanup()
        }
        guard let emulator else { return }
        let secrets = knownSecrets(emulator: emulator)
        let lines = logLines.withLock { $0 }
        if emulator.totalRequestCount > 0 {
            XCTAssertFalse(lines.isEmpty, "the case logged something for the scan to read")
        }
        for line in lines {
            if let secret = Self.leaked(in: line, secrets: secrets) {
                XCTFail("a log line with PII off holds a secret (\(secret.prefix(6))...): \(line.prefix(300))")
            }
        }
    }

    /// An application on the case's emulator and cache file.
    func makeApp(
        authority: URL = URL(string: "https://login.microsoftonline.com/common")!, connectTo: [String]? = nil,
        configure: (MSALPublicClientApplicationConfig) throws -> Void = { _ in }
    ) throws -> EmulatedApp {
        let file = cacheFile
        return try EmulatedApp(emulator: emulator, authority: authority, connectTo: connectTo) { config in
            config.cacheConfig.inMemoryOnly = false
            config.cacheConfig.cacheFileURL = file
            try configure(config)
        }
    }

    /// Remembers tokens the case saw, for the log scan.
    func remember(_ result: MSALResult) {
        extraSecrets.withLock { secrets in
            secrets.insert(result.accessToken)
            if let idToken = result.idToken { secrets.insert(idToken) }
        }
    }

    /// Remembers a secret the case used (a password, a code), for the log scan.
    func remember(secret: String) {
        _ = extraSecrets.withLock { $0.insert(secret) }
    }

    /// How many log lines the case produced so far.
    var logLineCount: Int { logLines.withLock { $0.count } }

    /// Every secret the case produced: the cache file's secrets, the sensitive form fields the
    /// emulator received, and what the case remembered. JWTs also count by their payload and
    /// signature, so a log line with part of one is caught too.
    private func knownSecrets(emulator: EntraEmulator) -> Set<String> {
        var secrets = extraSecrets.withLock { $0 }
        secrets.formUnion(CacheSnapshot.read(cacheFile).secrets)
        let sensitive: Set<String> = [
            "code", "refresh_token", "code_verifier", "password", "device_code", "client_assertion",
        ]
        for record in emulator.recentRequests {
            for item in record.formItems where sensitive.contains(item.name) {
                if let value = item.value { secrets.insert(value) }
            }
        }
        for secret in secrets where secret.split(separator: ".").count == 3 {
            for part in secret.split(separator: ".").dropFirst() { secrets.insert(String(part)) }
        }
        return secrets.filter { $0.count >= 12 }
    }

    /// The first of `secrets` that `line` contains. Secrets are made of base64url characters and
    /// dots (JWTs, refresh tokens, codes), so the line is cut into runs of those and each run, and
    /// each dot-separated part of it, is looked up: linear in the line, whatever the number of
    /// secrets.
    static func leaked(in line: String, secrets: Set<String>) -> String? {
        func isTokenCharacter(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                return true
            default:
                return false
            }
        }
        for run in line.utf8.split(whereSeparator: { !isTokenCharacter($0) }) {
            let word = String(decoding: run, as: UTF8.self)
            if secrets.contains(word) { return word }
            for part in word.split(separator: ".") where secrets.contains(String(part)) { return String(part) }
        }
        return nil
    }

    // MARK: Assertions

    /// Asserts the cache file holds exactly the token entries of `before`.
    func assertCacheUnchanged(since before: CacheSnapshot, file: StaticString = #filePath, line: UInt = #line) {
        let after = CacheSnapshot.read(cacheFile)
        XCTAssertTrue(after.parsed, "the cache file parses", file: file, line: line)
        XCTAssertEqual(after.entries, before.entries, "the cache lost or changed nothing", file: file, line: line)
    }

    /// Silent parameters for `account`.
    func silent(_ account: MSALAccount, _ scopes: [String] = ["User.Read"], force: Bool = false)
        -> MSALSilentTokenParameters
    {
        let parameters = MSALSilentTokenParameters(scopes: scopes, account: account)
        parameters.forceRefresh = force
        return parameters
    }

    /// Signs `username` in interactively and remembers the tokens.
    @discardableResult
    func signIn(_ username: String = EmulatorUser.alice.username, scopes: [String] = ["User.Read"]) async throws
        -> MSALResult
    {
        let result = try await app.signIn(scopes) { $0.loginHint = username }
        remember(result)
        return result
    }
}

/// The token sections of a cache file, entry by entry, as written on disk.
struct CacheSnapshot: Equatable {
    static let sections = ["AccessToken", "RefreshToken", "IdToken", "Account", "AppMetadata"]

    /// Whether the file was a JSON object (an absent file counts as an empty cache).
    var parsed: Bool
    /// Section name, then key, then the entry re-serialized with sorted keys.
    var entries: [String: [String: String]]

    /// Every `secret` in the file.
    var secrets: Set<String> {
        var secrets = Set<String>()
        for section in ["AccessToken", "RefreshToken", "IdToken"] {
            for entry in (entries[section] ?? [:]).values {
                guard let object = try? JSONSerialization.jsonObject(with: Data(entry.utf8)) as? [String: Any],
                    let secret = object["secret"] as? String
                else { continue }
                secrets.insert(secret)
            }
        }
        return secrets
    }

    /// How many entries `section` has.
    func count(_ section: String) -> Int { entries[section]?.count ?? 0 }

    /// The entries of `section` decoded.
    func objects(_ section: String) -> [[String: Any]] {
        (entries[section] ?? [:]).values.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    static func read(_ url: URL) -> CacheSnapshot {
        guard let data = try? Data(contentsOf: url) else { return CacheSnapshot(parsed: true, entries: [:]) }
        return parse(data)
    }

    static func parse(_ data: Data) -> CacheSnapshot {
        guard let document = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            return CacheSnapshot(parsed: false, entries: [:])
        }
        var entries: [String: [String: String]] = [:]
        for section in sections {
            guard let values = document[section] as? [String: Any] else { continue }
            var serialized: [String: String] = [:]
            for (key, value) in values {
                let data = (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])) ?? Data()
                serialized[key] = String(decoding: data, as: UTF8.self)
            }
            entries[section] = serialized
        }
        return CacheSnapshot(parsed: true, entries: entries)
    }
}

/// The log scan itself must catch a leak, or the suite's promise means nothing.
final class FaultLogScanTests: XCTestCase {
    func testTheScanFindsASecretAnywhereInALine() {
        let secrets: Set<String> = ["0.AXYZsecretrefreshtoken", "eyJpayloadpart1234"]
        XCTAssertEqual(
            FaultSuiteCase.leaked(in: "POST /token refresh_token=0.AXYZsecretrefreshtoken&x=1", secrets: secrets),
            "0.AXYZsecretrefreshtoken")
        XCTAssertNotNil(FaultSuiteCase.leaked(in: "id_token eyJpayloadpart1234 ok", secrets: secrets))
        XCTAssertNil(FaultSuiteCase.leaked(in: "refresh_token=(masked)", secrets: secrets))
    }
}
