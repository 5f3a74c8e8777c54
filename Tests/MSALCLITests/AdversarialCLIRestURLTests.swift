import Foundation
import MSAL
import MSALTestSupport
import XCTest

@testable import msal_cli

/// `msal rest` never prints a URL's query (SAS signatures, codes): not in `--verbose` logs, not
/// in a refused redirect's `Location`, not in a usage error (issue 33, item 4).
final class AdversarialCLIRestURLTests: XCTestCase {
    private var environment: CLITestEnvironment!

    override func setUpWithError() throws {
        environment = try CLITestEnvironment()
    }

    override func tearDown() {
        environment?.tearDown()
    }

    func testQueryStringsAreNeverPrinted() throws {
        let login = try environment.deviceCodeLogin(as: EmulatorUser.alice.username)
        XCTAssertEqual(login.status, 0, login.errorOutput)
        let server = try LoopbackHTTPSServer(certificateAuthority: environment.emulator.certificateAuthority) {
            request in
            request.path.hasPrefix("/gone")
                ? .respond(.redirect(to: "https://elsewhere.example/collect?code=CODEVALUE&who=PERSONAL", status: 302))
                : .respond(.json(["ok": true]))
        }
        defer { server.stop() }
        let base = server.baseURL.absoluteString

        let verbose = try environment.run([
            "rest", "--verbose", "--scope", "User.Read", base + "/items?sv=2024&sig=SIGVALUE",
        ])
        XCTAssertEqual(verbose.status, 0, verbose.errorOutput)
        XCTAssertTrue(verbose.errorOutput.contains("/items?"), verbose.errorOutput)
        let moved = try environment.run(["rest", "--scope", "User.Read", base + "/gone?sig=SIGVALUE"])
        XCTAssertEqual(moved.status, 8, moved.errorOutput)
        XCTAssertTrue(moved.errorOutput.contains("https://elsewhere.example/collect?"), moved.errorOutput)
        let plain = try environment.run(["rest", "--scope", "User.Read", "http://api.example.com/x?sig=SIGVALUE"])
        XCTAssertEqual(plain.status, 2, plain.errorOutput)
        XCTAssertTrue(plain.errorOutput.contains("http://api.example.com/x?"), plain.errorOutput)
        let loopback = try environment.run(["rest", "--scope", "User.Read", "http://127.0.0.1:9/x?sig=SIGVALUE"])
        XCTAssertEqual(loopback.status, 2, loopback.errorOutput)

        for (name, result) in [("verbose", verbose), ("redirect", moved), ("http", plain), ("loopback", loopback)] {
            for value in ["SIGVALUE", "sv=2024", "CODEVALUE", "PERSONAL"] {
                XCTAssertFalse(result.errorOutput.contains(value), "\(name): \(value) in \(result.errorOutput)")
            }
        }
    }

    func testTheShownFormOfAURL() {
        let rows: [(String, String, UInt)] = [
            ("https://api.example.com/items", "https://api.example.com/items", #line),
            ("https://a.example/i?sv=2024&sig=S", "https://a.example/i?sv=...&sig=...", #line),
            ("https://a.example/i?opaque#frag=x", "https://a.example/i?...#frag=...", #line),
            ("https://a.example/i?a=&b", "https://a.example/i?a=...&...", #line),
        ]
        for (url, shown, line) in rows {
            XCTAssertEqual(RestCommand.shown(url), shown, line: line)
        }
    }
}
