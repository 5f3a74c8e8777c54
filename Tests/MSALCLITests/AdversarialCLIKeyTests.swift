import Foundation
import Glibc
import MSALTestSupport
import XCTest

@testable import msal_cli

/// The cache's key from a systemd credential that is no key, or that others can read, or that is
/// no regular file (issue 33, items 5 and 6): `msal` says what is wrong with it, and where.
final class AdversarialCLIKeyTests: XCTestCase {
    private var environment: CLITestEnvironment!
    private var credentials: URL!

    override func setUpWithError() throws {
        environment = try CLITestEnvironment()
        credentials = environment.directory.appendingPathComponent("credentials")
        try FileManager.default.createDirectory(at: credentials, withIntermediateDirectories: true)
    }

    override func tearDown() {
        environment?.tearDown()
    }

    private var credential: String { credentials.appendingPathComponent("msal-cache-key").path }

    private var service: [String: String] {
        ["CREDENTIALS_DIRECTORY": credentials.path, "MSAL_CACHE_BACKEND": "systemd-credential"]
    }

    private func provision(_ contents: String, mode: mode_t) throws {
        try Data(contents.utf8).write(to: URL(fileURLWithPath: credential))
        XCTAssertEqual(chmod(credential, mode), 0)
    }

    /// 32 zero bytes in hex, or one repeated byte: refused with the reason, never used.
    func testACredentialThatIsNoKeyIsRefused() throws {
        for (contents, reason) in [
            (String(repeating: "00", count: 32) + "\n", "every byte is 0x00"),
            (String(repeating: "5a", count: 32), "every byte is 0x5a"),
        ] {
            try provision(contents, mode: 0o400)
            let accounts = try environment.run(["accounts"], extra: service)
            XCTAssertNotEqual(accounts.status, 0, accounts.output)
            XCTAssertTrue(accounts.errorOutput.contains(reason), accounts.errorOutput)
            XCTAssertFalse(FileManager.default.fileExists(atPath: environment.cacheFile), "nothing written")
        }
    }

    /// A credential of mode 0644 is used, with a warning on standard error; one of 0400 without.
    func testACredentialReadableByOthersIsWarnedOf() throws {
        let key = Data((0..<32).map { UInt8($0 * 7 + 5) }).base64EncodedString()
        try provision(key, mode: 0o644)
        let exposed = try environment.run(["accounts"], extra: service)
        XCTAssertEqual(exposed.status, 0, exposed.errorOutput)
        XCTAssertTrue(exposed.errorOutput.contains("msal: warning: "), exposed.errorOutput)
        XCTAssertTrue(exposed.errorOutput.contains("readable by its group or other users"), exposed.errorOutput)
        XCTAssertTrue(exposed.errorOutput.contains(credential), exposed.errorOutput)

        XCTAssertEqual(chmod(credential, 0o400), 0)
        let kept = try environment.run(["accounts"], extra: service)
        XCTAssertEqual(kept.status, 0, kept.errorOutput)
        XCTAssertFalse(kept.errorOutput.contains("readable by"), kept.errorOutput)
    }

    /// A FIFO at the credential's path (no hang), or a link to a missing file: the error and
    /// `msal doctor` name the path and the cause, not "the service has no credential".
    func testACredentialThatIsAFIFOOrADanglingLinkIsNamedAsSuch() throws {
        XCTAssertEqual(mkfifo(credential, 0o600), 0)
        try expectCause("is a FIFO (named pipe), not a regular file")
        unlink(credential)
        let missing = credentials.appendingPathComponent("gone").path
        try FileManager.default.createSymbolicLink(atPath: credential, withDestinationPath: missing)
        try expectCause("a symbolic link to \(missing), which does not exist")
    }

    private func expectCause(_ cause: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let started = Date()
        let accounts = try environment.run(["accounts"], extra: service)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "no hang", file: file, line: line)
        XCTAssertNotEqual(accounts.status, 0, file: file, line: line)
        XCTAssertTrue(accounts.errorOutput.contains(cause), accounts.errorOutput, file: file, line: line)
        XCTAssertTrue(accounts.errorOutput.contains(credential), accounts.errorOutput, file: file, line: line)
        XCTAssertFalse(accounts.errorOutput.contains("has no credential"), accounts.errorOutput, file: file, line: line)
        let doctor = try environment.run(["doctor"], extra: ["CREDENTIALS_DIRECTORY": credentials.path])
        XCTAssertTrue(doctor.output.contains(cause), doctor.output, file: file, line: line)
    }

    /// The cache's key in the desktop keyring, whose collection is then locked: the error and
    /// `msal doctor` say the collection is locked, not that a key store is empty.
    func testALockedKeyringCollectionIsNamedAsLocked() throws {
        let keyring = try CLIKeyringDaemon()
        defer { keyring.stop() }
        let desktop = keyring.environment.merging(["MSAL_CACHE_BACKEND": "", "CREDENTIALS_DIRECTORY": ""]) { $1 }
        let login = try environment.deviceCodeLogin(as: EmulatorUser.bob.username, extra: desktop)
        XCTAssertEqual(login.status, 0, login.errorOutput)
        XCTAssertTrue(login.errorOutput.contains("desktop keyring (Secret Service)"), login.errorOutput)
        let before = try Data(contentsOf: URL(fileURLWithPath: environment.cacheFile))

        let lock = try Self.runTool(
            "/usr/bin/dbus-send",
            [
                "--bus=\(keyring.address)", "--print-reply", "--dest=org.freedesktop.secrets",
                "/org/freedesktop/secrets", "org.freedesktop.Secret.Service.Lock",
                "array:objpath:/org/freedesktop/secrets/aliases/default",
            ])
        XCTAssertEqual(lock.status, 0, lock.errorOutput)

        let accounts = try environment.run(["accounts"], extra: desktop)
        XCTAssertNotEqual(accounts.status, 0, accounts.output)
        XCTAssertTrue(accounts.errorOutput.contains("locked"), accounts.errorOutput)
        XCTAssertFalse(accounts.errorOutput.contains("holds no key"), accounts.errorOutput)
        XCTAssertFalse(accounts.errorOutput.contains("kernel keyring"), accounts.errorOutput)
        let doctor = try environment.run(["doctor"], extra: desktop)
        XCTAssertTrue(doctor.output.contains("locked"), doctor.output)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: environment.cacheFile)), before, "untouched")
    }

    /// The decision: an encrypted file whose key store fails here while another works is refused
    /// with the failing store's own reason, not as a change of store.
    func testTheKeyHoldersOwnFailureIsTheReason() {
        let facts = CacheBackendDecision.Facts(
            requested: nil,
            probes: [.secretService: .unavailable("the collection default is locked"), .kernelKeyring: .available],
            previous: .secretService, fileExists: true, fileIsEncrypted: true, warningShown: true, path: "/c.json")
        guard case .refuse(let message) = CacheBackendDecision.decide(facts).outcome else {
            return XCTFail("refused")
        }
        XCTAssertTrue(message.contains("the collection default is locked"), message)
        XCTAssertFalse(message.contains("kernel keyring"), message)
    }

    /// Runs a program to its end; its status and standard error.
    static func runTool(_ path: String, _ arguments: [String]) throws -> (status: Int32, errorOutput: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let data = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
