import Foundation
import MSALTestSupport
import XCTest

@testable import msal_cli

/// The tool's choice of where the cache's key lives: the decision table as values, then the
/// binary run as a subprocess against the emulator (the plaintext warning once, the systemd
/// credential chosen and the plaintext cache migrated, a gone credential refused with the file
/// untouched).
final class CLICacheBackendTests: XCTestCase {
    private typealias Facts = CacheBackendDecision.Facts

    private func facts(
        requested: CacheBackend? = nil, secretService: CacheBackendProbe = .notBuiltIn,
        kernel: CacheBackendProbe = .notBuiltIn, credential: CacheBackendProbe = .unavailable("no credential"),
        previous: CacheBackend? = nil, exists: Bool = false, encrypted: Bool = false, warned: Bool = false
    ) -> Facts {
        Facts(
            requested: requested,
            probes: [.secretService: secretService, .kernelKeyring: kernel, .systemdCredential: credential],
            previous: previous, fileExists: exists, fileIsEncrypted: encrypted, warningShown: warned, path: "/c.json")
    }

    func testTheBestAvailableBackendIsChosenInOrder() {
        let decide = CacheBackendDecision.decide
        XCTAssertEqual(
            decide(facts(secretService: .available, kernel: .available, credential: .available)).outcome,
            .use(.secretService))
        XCTAssertEqual(decide(facts(kernel: .available, credential: .available)).outcome, .use(.kernelKeyring))
        XCTAssertEqual(
            decide(facts(secretService: .unavailable("locked"), credential: .available)).outcome,
            .use(.systemdCredential))
        let fallback = decide(facts(secretService: .unavailable("no D-Bus session bus")))
        XCTAssertEqual(fallback.outcome, .use(.plaintext))
        XCTAssertTrue(fallback.isPlaintextWarning)
        XCTAssertTrue(fallback.notice?.contains("no D-Bus session bus") ?? false, fallback.notice ?? "")
        XCTAssertTrue(fallback.notice?.contains("MSAL_CACHE_BACKEND=plaintext") ?? false)
        // Once: then quiet, and quiet when chosen.
        XCTAssertEqual(decide(facts(previous: .plaintext, warned: true)), .init(outcome: .use(.plaintext)))
        XCTAssertEqual(decide(facts(requested: .plaintext)), .init(outcome: .use(.plaintext)))
    }

    func testAChosenBackendThatDoesNotWorkIsRefused() {
        let decide = CacheBackendDecision.decide
        guard case .refuse(let missing) = decide(facts(requested: .systemdCredential)).outcome else {
            return XCTFail("used")
        }
        XCTAssertTrue(missing.contains("no credential"), missing)
        guard case .refuse(let absent) = decide(facts(requested: .secretService)).outcome else {
            return XCTFail("used")
        }
        XCTAssertTrue(absent.contains("not linked into this portable msal"), absent)
    }

    func testChangingBackendNeverLosesAccountsSilently() {
        let decide = CacheBackendDecision.decide
        // Plaintext -> a key store: migrated (the file is re-written encrypted), and said.
        let migrated = decide(facts(credential: .available, previous: .plaintext, exists: true, warned: true))
        XCTAssertEqual(migrated.outcome, .use(.systemdCredential))
        XCTAssertTrue(migrated.notice?.contains("re-written encrypted, with every account") ?? false)
        // Said once: the next run is quiet.
        XCTAssertNil(
            decide(facts(credential: .available, previous: .systemdCredential, exists: true, encrypted: true)).notice)
        // A key store -> gone: the encrypted file is not given up for an empty plaintext cache.
        guard
            case .refuse(let gone) = decide(facts(previous: .systemdCredential, exists: true, encrypted: true)).outcome
        else { return XCTFail("used") }
        XCTAssertTrue(gone.contains("the systemd credential msal-cache-key"), gone)
        XCTAssertTrue(gone.contains("Nothing was changed"), gone)
        XCTAssertEqual(
            decide(facts(requested: .plaintext, previous: .systemdCredential, exists: true, encrypted: true)).outcome,
            decide(facts(previous: .systemdCredential, exists: true, encrypted: true)).outcome)
        // A key store -> another: the key is in the first one.
        guard
            case .refuse(let other) = decide(
                facts(
                    secretService: .available, credential: .available, previous: .systemdCredential, exists: true,
                    encrypted: true)
            ).outcome
        else { return XCTFail("used") }
        XCTAssertTrue(other.contains("--cache-backend systemd-credential"), other)
    }

    // MARK: - The binary

    private var environment: CLITestEnvironment!

    override func tearDown() {
        environment?.tearDown()
    }

    func testThePlaintextFallbackIsWarnedOnceAndCanBeChosenQuietly() throws {
        environment = try CLITestEnvironment()
        let noCredentials = ["CREDENTIALS_DIRECTORY": ""]
        let first = try environment.run(["accounts"], extra: noCredentials)
        XCTAssertEqual(first.status, 0, first.errorOutput)
        XCTAssertTrue(first.errorOutput.contains("msal: warning: no key store is available here"), first.errorOutput)
        XCTAssertTrue(first.errorOutput.contains(environment.cacheFile), first.errorOutput)
        XCTAssertTrue(first.errorOutput.contains("--cache-backend plaintext"), first.errorOutput)
        let second = try environment.run(["accounts"], extra: noCredentials)
        XCTAssertFalse(second.errorOutput.contains("warning"), "said once: \(second.errorOutput)")
        let defaults = try String(
            contentsOf: environment.directory.appendingPathComponent("msal_cli_defaults.json"), encoding: .utf8)
        XCTAssertTrue(defaults.contains("\"plaintext_warning_shown\" : true"), defaults)

        let quiet = try CLITestEnvironment()
        defer { quiet.tearDown() }
        let chosen = try quiet.run(
            ["accounts"], extra: noCredentials.merging(["MSAL_CACHE_BACKEND": "plaintext"]) { $1 })
        XCTAssertEqual(chosen.status, 0)
        XCTAssertEqual(chosen.errorOutput, "")
        let refused = try quiet.run(["accounts", "--cache-backend", "secret-service"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.errorOutput.contains("not linked into this portable msal"), refused.errorOutput)
    }

    func testTheSystemdCredentialIsChosenAndThePlaintextCacheMigrated() throws {
        environment = try CLITestEnvironment()
        // Signed in with the plaintext file first.
        let login = try environment.deviceCodeLogin(as: EmulatorUser.bob.username, extra: ["CREDENTIALS_DIRECTORY": ""])
        XCTAssertEqual(login.status, 0, login.errorOutput)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: environment.cacheFile)).first, UInt8(ascii: "{"))

        // Run as a service with the credential: chosen, said, and the next change re-writes the
        // file encrypted with Bob still in it.
        let credentials = environment.directory.appendingPathComponent("credentials")
        try FileManager.default.createDirectory(at: credentials, withIntermediateDirectories: true)
        try Data(repeating: 9, count: 32).base64EncodedData().write(
            to: credentials.appendingPathComponent("msal-cache-key"))
        let service = ["CREDENTIALS_DIRECTORY": credentials.path]
        let second = try environment.deviceCodeLogin(as: EmulatorUser.alice.username, extra: service)
        XCTAssertEqual(second.status, 0, second.errorOutput)
        XCTAssertTrue(
            second.errorOutput.contains("the token cache's key is kept in the systemd credential msal-cache-key"),
            second.errorOutput)
        let encrypted = try Data(contentsOf: URL(fileURLWithPath: environment.cacheFile))
        XCTAssertEqual(Array(encrypted.prefix(10)), CacheBackendSelection.encryptedHeader)
        let accounts = try environment.run(["accounts", "-o", "tsv"], extra: service)
        XCTAssertEqual(accounts.status, 0, accounts.errorOutput)
        XCTAssertTrue(accounts.output.contains(EmulatorUser.bob.username), "migrated: \(accounts.output)")
        XCTAssertTrue(accounts.output.contains(EmulatorUser.alice.username), accounts.output)
        XCTAssertFalse(accounts.errorOutput.contains("kept in"), "said once: \(accounts.errorOutput)")

        // The credential gone (run outside the service): refused, the file untouched.
        let outside = try environment.run(["accounts"], extra: ["CREDENTIALS_DIRECTORY": ""])
        XCTAssertEqual(outside.status, 1)
        XCTAssertTrue(
            outside.errorOutput.contains("is encrypted (its key was kept in the systemd credential"),
            outside.errorOutput)
        XCTAssertTrue(outside.errorOutput.contains("Nothing was changed"), outside.errorOutput)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: environment.cacheFile)), encrypted)
    }
}
