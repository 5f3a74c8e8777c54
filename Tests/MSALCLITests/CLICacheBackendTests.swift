import Foundation
import MSALKernelKeyring
import MSALTestSupport
import XCTest

@testable import msal_cli

/// The tool's choice of where the cache's key lives: the decision table as values, then the
/// binary run as a subprocess against the emulator (the plaintext warning once, naming broken
/// keyring libraries; the desktop keyring chosen where one runs; the systemd credential used and
/// the plaintext cache migrated, a gone credential refused with the file untouched).
final class CLICacheBackendTests: XCTestCase {
    private typealias Facts = CacheBackendDecision.Facts

    private func facts(
        requested: CacheBackend? = nil, secretService: CacheBackendProbe = .unavailable("no D-Bus session bus"),
        kernel: CacheBackendProbe = .unavailable("no libkeyutils"),
        credential: CacheBackendProbe = .unavailable("no credential"),
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

    /// A cache in a folder this process cannot write (a read-only copy): no key store can get its
    /// first key or re-write the file, so the plaintext file is read as it is, quietly; an
    /// encrypted one still needs its key store.
    func testAReadOnlyFolderIsReadAsItIs() {
        let decide = CacheBackendDecision.decide
        var readOnly = facts(kernel: .available, previous: nil, exists: true)
        readOnly.folderIsWritable = false
        XCTAssertEqual(decide(readOnly), .init(outcome: .use(.plaintext)))
        readOnly.fileIsEncrypted = true
        readOnly.previous = .kernelKeyring
        XCTAssertEqual(decide(readOnly).outcome, .use(.kernelKeyring))
        readOnly.fileIsEncrypted = false
        readOnly.requested = .kernelKeyring
        XCTAssertEqual(decide(readOnly).outcome, .use(.kernelKeyring), "asked for by name")
    }

    func testAChosenBackendThatDoesNotWorkIsRefused() {
        let decide = CacheBackendDecision.decide
        guard case .refuse(let missing) = decide(facts(requested: .systemdCredential)).outcome else {
            return XCTFail("used")
        }
        XCTAssertTrue(missing.contains("no credential"), missing)
        guard case .refuse(let absent) = decide(facts(requested: .secretService, kernel: .available)).outcome else {
            return XCTFail("used")
        }
        XCTAssertTrue(absent.contains("--cache-backend secret-service: no D-Bus session bus"), absent)
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

    /// A file encrypted with the key of the store used last: that store, without a probe (a probe
    /// writes, reads and removes a test item, at every command), and a desktop keyring that
    /// appears later (an SSH login first, the desktop then) does not take the file over.
    func testTheStoreThatHoldsTheKeyIsUsedWithoutProbes() {
        var known = Facts(
            requested: nil, probes: [:], previous: .kernelKeyring, fileExists: true, fileIsEncrypted: true,
            warningShown: false, path: "/c.json")
        XCTAssertEqual(CacheBackendDecision.probesNeeded(known), [])
        XCTAssertEqual(CacheBackendDecision.decide(known), .init(outcome: .use(.kernelKeyring)))
        known.requested = .secretService
        XCTAssertEqual(CacheBackendDecision.probesNeeded(known), [.secretService], "asked for by name")

        var fresh = Facts(
            requested: nil, probes: [:], previous: nil, fileExists: false, fileIsEncrypted: false,
            warningShown: false, path: "/c.json")
        XCTAssertEqual(CacheBackendDecision.probesNeeded(fresh), CacheBackend.preference)
        fresh.previous = .plaintext
        fresh.fileExists = true
        XCTAssertEqual(CacheBackendDecision.probesNeeded(fresh), CacheBackend.preference, "a key store is looked for")
    }

    // MARK: - The binary

    private var environment: CLITestEnvironment!

    override func tearDown() {
        environment?.tearDown()
    }

    /// No key store at all: no credential, a session bus that is not there, and both keyring
    /// libraries broken (the libraries are opened at run time, so the tool still starts).
    private func noKeyStores(_ environment: CLITestEnvironment) throws -> [String: String] {
        try environment.brokenKeyringLibraries().merging([
            "CREDENTIALS_DIRECTORY": "", "MSAL_CACHE_BACKEND": "",
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=" + environment.directory.appendingPathComponent("no-bus").path,
        ]) { $1 }
    }

    func testThePlaintextFallbackIsWarnedOnceAndCanBeChosenQuietly() throws {
        environment = try CLITestEnvironment()
        let noCredentials = try noKeyStores(environment)
        let first = try environment.run(["accounts"], extra: noCredentials)
        XCTAssertEqual(first.status, 0, first.errorOutput)
        XCTAssertTrue(first.errorOutput.contains("msal: warning: no key store is available here"), first.errorOutput)
        XCTAssertTrue(first.errorOutput.contains("libsecret-1.so.0 could not be loaded"), first.errorOutput)
        XCTAssertTrue(first.errorOutput.contains("libkeyutils.so.1 could not be loaded"), first.errorOutput)
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
        let broken = try noKeyStores(quiet)
        let refused = try quiet.run(["accounts", "--cache-backend", "secret-service"], extra: broken)
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.errorOutput.contains("libsecret-1.so.0 could not be loaded"), refused.errorOutput)
        let kernel = try quiet.run(["accounts", "--cache-backend", "kernel-keyring"], extra: broken)
        XCTAssertEqual(kernel.status, 1)
        XCTAssertTrue(kernel.errorOutput.contains("libkeyutils.so.1 could not be loaded"), kernel.errorOutput)
        XCTAssertTrue(kernel.errorOutput.contains("install libkeyutils"), kernel.errorOutput)
    }

    /// Broken keyring libraries on the library path: a cached token is still printed, the
    /// fallback's warning names each library, and `msal doctor` says why each keyring is out.
    func testBrokenKeyringLibrariesAreNamedAndACachedTokenStillPrinted() throws {
        environment = try CLITestEnvironment()
        XCTAssertEqual(try environment.deviceCodeLogin(as: EmulatorUser.bob.username).status, 0)
        let cached = try environment.run(["token", "--scopes", "User.Read"])
        XCTAssertEqual(cached.status, 0, cached.errorOutput)

        let broken = try noKeyStores(environment)
        let again = try environment.run(["token", "--scopes", "User.Read"], extra: broken)
        XCTAssertEqual(again.status, 0, again.errorOutput)
        XCTAssertEqual(again.output, cached.output)
        XCTAssertTrue(again.errorOutput.contains("no key store is available here"), again.errorOutput)
        XCTAssertTrue(again.errorOutput.contains("libsecret-1.so.0 could not be loaded"), again.errorOutput)
        XCTAssertTrue(again.errorOutput.contains("file too short"), again.errorOutput)
        XCTAssertTrue(again.errorOutput.contains("libkeyutils.so.1 could not be loaded"), again.errorOutput)

        let doctor = try environment.run(["doctor", "-o", "json"], extra: broken)
        let report = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(doctor.output.utf8)) as? [String: Any], doctor.errorOutput)
        let stores = try XCTUnwrap(report["key_stores"] as? [[String: Any]])
        XCTAssertEqual(stores.count, 3)
        XCTAssertEqual(stores.compactMap { $0["available"] as? Bool }, [false, false, false])
        XCTAssertTrue((stores[0]["problem"] as? String ?? "").contains("libsecret-1.so.0"), "\(stores[0])")
        XCTAssertTrue((stores[1]["problem"] as? String ?? "").contains("libkeyutils.so.1"), "\(stores[1])")
    }

    /// With a desktop keyring on the session bus (a private dbus-daemon and gnome-keyring-daemon),
    /// `msal login` keeps the cache's key there and says so, and `msal doctor` shows it in use.
    func testTheDesktopKeyringIsChosenWhereOneRunsAndDoctorSaysSo() throws {
        environment = try CLITestEnvironment()
        let keyring = try CLIKeyringDaemon()
        defer { keyring.stop() }
        let desktop = keyring.environment.merging(["MSAL_CACHE_BACKEND": "", "CREDENTIALS_DIRECTORY": ""]) { $1 }

        let login = try environment.deviceCodeLogin(as: EmulatorUser.bob.username, extra: desktop)
        XCTAssertEqual(login.status, 0, login.errorOutput)
        XCTAssertTrue(
            login.errorOutput.contains("the token cache's key is kept in the desktop keyring (Secret Service)"),
            login.errorOutput)
        let encrypted = try Data(contentsOf: URL(fileURLWithPath: environment.cacheFile))
        XCTAssertEqual(Array(encrypted.prefix(10)), CacheBackendSelection.encryptedHeader)
        let token = try environment.run(["token", "--scopes", "User.Read"], extra: desktop)
        XCTAssertEqual(token.status, 0, token.errorOutput)
        XCTAssertFalse(token.output.isEmpty)
        XCTAssertFalse(token.errorOutput.contains("kept in"), "said once: \(token.errorOutput)")

        let doctor = try environment.run(["doctor", "-o", "json"], extra: desktop)
        XCTAssertEqual(doctor.status, 0, doctor.errorOutput)
        let report = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(doctor.output.utf8)) as? [String: Any], doctor.errorOutput)
        let first = try XCTUnwrap((report["key_stores"] as? [[String: Any]])?.first)
        XCTAssertTrue((first["store"] as? String ?? "").hasPrefix("Secret Service"), "\(first)")
        XCTAssertEqual(first["available"] as? Bool, true, "\(first)")
        XCTAssertEqual(first["active"] as? Bool, true, "\(first)")
        XCTAssertEqual(
            (report["cache"] as? [String: Any])?["storage"] as? String,
            "encrypted file, its key in the key store in use below")
        let text = try environment.run(["doctor"], extra: desktop)
        XCTAssertTrue(text.output.contains("key store: Secret Service"), text.output)
        XCTAssertTrue(text.output.contains("in use"), text.output)

        // Without the bus the key cannot be reached: refused, the file untouched.
        let before = try Data(contentsOf: URL(fileURLWithPath: environment.cacheFile))
        let away = try environment.run(["accounts"], extra: try noKeyStores(environment))
        XCTAssertEqual(away.status, 1, away.errorOutput)
        XCTAssertTrue(away.errorOutput.contains("the desktop keyring (Secret Service)"), away.errorOutput)
        XCTAssertTrue(away.errorOutput.contains("Nothing was changed"), away.errorOutput)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: environment.cacheFile)), before)
    }

    func testTheSystemdCredentialIsUsedAndThePlaintextCacheMigrated() throws {
        environment = try CLITestEnvironment()
        // Signed in with the plaintext file first.
        let login = try environment.deviceCodeLogin(as: EmulatorUser.bob.username, extra: ["CREDENTIALS_DIRECTORY": ""])
        XCTAssertEqual(login.status, 0, login.errorOutput)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: environment.cacheFile)).first, UInt8(ascii: "{"))

        // Run as a service with the credential: chosen, said, and the next change re-writes the
        // file encrypted with Bob still in it.
        let credentials = environment.directory.appendingPathComponent("credentials")
        try FileManager.default.createDirectory(at: credentials, withIntermediateDirectories: true)
        try Data((0..<32).map { UInt8($0 * 7 + 9) }).base64EncodedData().write(
            to: credentials.appendingPathComponent("msal-cache-key"))
        // (Chosen by name: the kernel keyring, preferred to it, may work on this machine.)
        let service = ["CREDENTIALS_DIRECTORY": credentials.path, "MSAL_CACHE_BACKEND": "systemd-credential"]
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
        let outside = try environment.run(["accounts"], extra: try noKeyStores(environment))
        XCTAssertEqual(outside.status, 1)
        XCTAssertTrue(
            outside.errorOutput.contains("is encrypted (its key was kept in the systemd credential"),
            outside.errorOutput)
        XCTAssertTrue(outside.errorOutput.contains("Nothing was changed"), outside.errorOutput)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: environment.cacheFile)), encrypted)
    }

    /// The kernel keyring, chosen without a desktop: `msal login` says once where the key is and
    /// how to remove it; `msal logout --all` removes the cache file, that key and the defaults,
    /// and a second run has nothing left to remove.
    func testTheKernelKeyringKeyIsNamedAndLogoutAllRemovesIt() throws {
        environment = try CLITestEnvironment()
        let kernel = [
            "MSAL_CACHE_BACKEND": "kernel-keyring", "CREDENTIALS_DIRECTORY": "",
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=" + environment.directory.appendingPathComponent("no-bus").path,
        ]
        let keyName = "msal:" + environment.cacheFile
        let store = MSALKernelKeyringKeyStore(keyName: keyName, keyring: .user)
        defer { _ = try? store.removeKey() }

        let login = try environment.deviceCodeLogin(as: EmulatorUser.bob.username, extra: kernel)
        XCTAssertEqual(login.status, 0, login.errorOutput)
        XCTAssertTrue(
            login.errorOutput.contains("the token cache's key is kept in the kernel keyring"), login.errorOutput)
        XCTAssertTrue(login.errorOutput.contains("the key \(keyName) of the user's keyring (@u)"), login.errorOutput)
        XCTAssertTrue(login.errorOutput.contains("`msal logout --all` removes it"), login.errorOutput)
        XCTAssertNotNil(try store.loadKey(), "the key is where the notice says")
        let token = try environment.run(["token", "--scopes", "User.Read"], extra: kernel)
        XCTAssertEqual(token.status, 0, token.errorOutput)
        XCTAssertFalse(token.errorOutput.contains("kept in"), "said once: \(token.errorOutput)")

        let misuse = try environment.run(["logout", "--all", "--wipe"], extra: kernel)
        XCTAssertEqual(misuse.status, 2, misuse.errorOutput)
        XCTAssertTrue(FileManager.default.fileExists(atPath: environment.cacheFile))

        // Without a client id: --all needs none.
        let all = try environment.run(["logout", "--all"], extra: kernel.merging(["MSAL_CLIENT_ID": ""]) { $1 })
        XCTAssertEqual(all.status, 0, all.errorOutput)
        XCTAssertTrue(all.errorOutput.contains("Removed the token cache \(environment.cacheFile)"), all.errorOutput)
        XCTAssertTrue(all.errorOutput.contains("its key in the kernel keyring"), all.errorOutput)
        XCTAssertFalse(FileManager.default.fileExists(atPath: environment.cacheFile))
        XCTAssertFalse(
            FileManager.default.fileExists(
                atPath: environment.directory.appendingPathComponent(DefaultAccount.fileName).path))
        XCTAssertNil(try store.loadKey())

        let again = try environment.run(["logout", "--all"], extra: kernel)
        XCTAssertEqual(again.status, 0, again.errorOutput)
        XCTAssertTrue(again.errorOutput.contains("Nothing to remove"), again.errorOutput)
        let accounts = try environment.run(["accounts", "-o", "tsv"], extra: kernel)
        XCTAssertEqual(accounts.status, 0, accounts.errorOutput)
        XCTAssertEqual(accounts.output, "")
    }

    /// A cache path that is a symbolic link is not followed by `logout --all`: nothing is removed.
    func testLogoutAllLeavesALinkedCacheAlone() throws {
        environment = try CLITestEnvironment()
        let elsewhere = environment.directory.appendingPathComponent("someone-elses.json")
        try Data("{}".utf8).write(to: elsewhere)
        try FileManager.default.createSymbolicLink(atPath: environment.cacheFile, withDestinationPath: elsewhere.path)
        let all = try environment.run(["logout", "--all"])
        XCTAssertEqual(all.status, 1, all.errorOutput)
        XCTAssertTrue(all.errorOutput.contains("is not a regular file; nothing was removed"), all.errorOutput)
        XCTAssertEqual(try Data(contentsOf: elsewhere), Data("{}".utf8))
        XCTAssertNotNil(try? FileManager.default.destinationOfSymbolicLink(atPath: environment.cacheFile))
    }
}
