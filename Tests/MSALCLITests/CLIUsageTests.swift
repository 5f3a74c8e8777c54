import Foundation
import XCTest

/// `--help`, `msal help`, `--version`, global options and usage errors (exit code 2, one line on
/// standard error naming the nearest valid spelling and the help to read).
final class CLIUsageTests: XCTestCase {
    private let commands = ["login", "token", "accounts", "logout", "emulator", "demo"]

    func testHelpForEachCommand() throws {
        for command in commands {
            for arguments in [[command, "--help"], ["help", command], ["--help", command], [command, "-h"]] {
                let result = try CLIProcess.run(arguments)
                XCTAssertEqual(result.status, 0, "\(arguments)")
                XCTAssertTrue(result.output.hasPrefix("usage: msal \(command)"), "\(arguments): \(result.output)")
                XCTAssertEqual(result.errorOutput, "")
            }
        }
        for arguments in [["--help"], ["help"], ["-h"]] {
            let general = try CLIProcess.run(arguments)
            XCTAssertEqual(general.status, 0)
            for command in commands + ["help"] {
                XCTAssertTrue(general.output.contains("\n  \(command) "), "\(arguments): \(command) listed")
            }
        }
        let version = try CLIProcess.run(["--version"])
        XCTAssertEqual(version.status, 0)
        XCTAssertTrue(version.output.hasPrefix("msal "), version.output)
    }

    func testBadArgumentsExitWithOneLineNamingTheNearestOptionAndTheHelp() throws {
        let environment = ["MSAL_CLIENT_ID": "11111111-2222-3333-4444-555555555555"]
        let cases: [(arguments: [String], message: String, help: String)] = [
            ([], "msal: no command given", "msal --help"),
            (["frobnicate"], "unknown command 'frobnicate'", "msal --help"),
            (["tokn"], "unknown command 'tokn' (did you mean 'token'?)", "msal --help"),
            (["help", "acounts"], "unknown command 'acounts' (did you mean 'accounts'?)", "msal --help"),
            (["token"], "--scopes (or --resource) is required", "msal token --help"),
            (["token", "--scopes"], "--scopes needs a value", "msal token --help"),
            (["token", "--scopes", "a", "extra"], "unexpected argument 'extra'", "msal token --help"),
            (
                ["token", "--scops", "a"], "unknown option '--scops' for 'token' (did you mean '--scopes'?)",
                "msal token --help"
            ),
            (["token", "--acount", "a"], "(did you mean '--account'?)", "msal token --help"),
            (
                ["token", "-o", "yaml", "--scopes", "a"], "--output 'yaml' is not one of text, json, tsv, none",
                "msal token --help"
            ),
            (
                ["token", "--scopes", "a", "--resource", "b"], "give --scopes or --resource, not both",
                "msal token --help"
            ),
            (
                ["token", "--scopes", "a", "--timeout", "soon"], "--timeout needs a number of seconds",
                "msal token --help"
            ),
            (["login", "--wipe"], "unknown option '--wipe' for 'login'", "msal login --help"),
            (["logout", "--wipe=yes"], "--wipe takes no value", "msal logout --help"),
            (["emulator", "--port", "70000"], "--port needs a number from 0 to 65535", "msal emulator --help"),
            (["accounts", "--authority", "not a url"], "--authority 'not a url'", "msal accounts --help"),
            (["accounts", "--ca-file", "/nonexistent.pem"], "cannot be read", "msal accounts --help"),
            (["--cache", "/tmp/x", "demo"], "option '--cache' does not apply to 'demo'", "msal demo --help"),
            (["--scopes", "a", "token"], "unknown option '--scopes'", "msal --help"),
        ]
        for (arguments, message, help) in cases {
            let result = try CLIProcess.run(arguments, environment: environment)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.errorOutput)")
            XCTAssertTrue(result.errorOutput.contains(message), "\(arguments): \(result.errorOutput)")
            XCTAssertTrue(result.errorOutput.hasSuffix("; see `\(help)`\n"), "\(arguments): \(result.errorOutput)")
            XCTAssertEqual(result.errorOutput.filter { $0 == "\n" }.count, 1, "one line: \(result.errorOutput)")
            XCTAssertEqual(result.output, "", "\(arguments)")
        }
        let noClient = try CLIProcess.run(["accounts"])
        XCTAssertEqual(noClient.status, 2)
        XCTAssertTrue(noClient.errorOutput.contains("--client-id is required (or set MSAL_CLIENT_ID)"))
    }

    /// Global options work before the command as after it, with the same effect (`--verbose` and
    /// `--timeout` before the command: CLIScriptingTests.testTimeoutStopsATokenRequestToAStalledServer).
    func testGlobalOptionsBeforeOrAfterTheCommand() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-cli-global-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = directory.appendingPathComponent("msal_cache.json").path
        let forms: [[String]] = [
            ["--verbose", "--client-id", "id", "--cache", cache, "-o", "json", "accounts"],
            ["accounts", "--verbose", "--client-id=id", "--cache", cache, "--output", "json"],
            ["-o", "json", "accounts", "--client-id", "id", "--verbose", "--cache", cache],
        ]
        for arguments in forms {
            let result = try CLIProcess.run(arguments)
            XCTAssertEqual(result.status, 0, "\(arguments): \(result.errorOutput)")
            XCTAssertEqual(result.output.filter { !$0.isWhitespace }, "[]", "\(arguments): -o json applies")
        }
    }
}
