import Foundation
import Glibc
import MSALTestSupport
import XCTest

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
}
