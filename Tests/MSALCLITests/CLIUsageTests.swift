import Foundation
import XCTest

/// `--help`, `--version` and usage errors (exit code 2 with the usage on standard error).
final class CLIUsageTests: XCTestCase {
    private let commands = ["login", "token", "accounts", "logout", "emulator", "demo"]

    func testHelpForEachCommand() throws {
        for command in commands {
            let result = try CLIProcess.run([command, "--help"])
            XCTAssertEqual(result.status, 0, command)
            XCTAssertTrue(result.output.hasPrefix("usage: msal \(command)"), result.output)
            XCTAssertEqual(result.errorOutput, "")
        }
        let general = try CLIProcess.run(["--help"])
        XCTAssertEqual(general.status, 0)
        for command in commands {
            XCTAssertTrue(general.output.contains("\n  \(command) "), "\(command) listed")
        }
        let version = try CLIProcess.run(["--version"])
        XCTAssertEqual(version.status, 0)
        XCTAssertTrue(version.output.hasPrefix("msal "), version.output)
    }

    func testBadArgumentsExitWithUsage() throws {
        let environment = ["MSAL_CLIENT_ID": "11111111-2222-3333-4444-555555555555"]
        let cases: [(arguments: [String], message: String, usage: String)] = [
            ([], "msal: no command given", "usage: msal <command>"),
            (["frobnicate"], "unknown command 'frobnicate'", "usage: msal <command>"),
            (["token"], "--scopes is required", "usage: msal token"),
            (["token", "--scopes"], "--scopes needs a value", "usage: msal token"),
            (["token", "--scopes", "a", "extra"], "unexpected argument 'extra'", "usage: msal token"),
            (["login", "--json"], "unknown option '--json' for 'login'", "usage: msal login"),
            (["logout"], "--account is required", "usage: msal logout"),
            (["emulator", "--port", "70000"], "--port needs a number from 0 to 65535", "usage: msal emulator"),
            (["accounts", "--authority", "not a url"], "--authority 'not a url'", "usage: msal accounts"),
            (["accounts", "--ca-file", "/nonexistent.pem"], "cannot be read", "usage: msal accounts"),
        ]
        for (arguments, message, usage) in cases {
            let result = try CLIProcess.run(arguments, environment: environment)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.errorOutput)")
            XCTAssertTrue(result.errorOutput.contains(message), "\(arguments): \(result.errorOutput)")
            XCTAssertTrue(result.errorOutput.contains(usage), "\(arguments): \(result.errorOutput)")
            XCTAssertEqual(result.output, "", "\(arguments)")
        }
        let noClient = try CLIProcess.run(["accounts"])
        XCTAssertEqual(noClient.status, 2)
        XCTAssertTrue(noClient.errorOutput.contains("--client-id is required (or set MSAL_CLIENT_ID)"))
    }
}
