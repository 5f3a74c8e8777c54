import Foundation
import XCTest

/// `msal demo` (its own test: every step must behave) and `msal emulator`.
final class CLIDemoAndEmulatorTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "msal-cli-tmp-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
    }

    private func leftovers() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path)
    }

    func testDemoPassesQuicklyShowsNoWholeTokenAndLeavesNoFiles() throws {
        let started = Date()
        let result = try CLIProcess.run(["demo"], environment: ["TMPDIR": directory.path, "HOME": directory.path])
        XCTAssertEqual(result.status, 0, result.output + result.errorOutput)
        XCTAssertTrue(result.output.contains("✓ All 10 steps behaved as expected"), result.output)
        XCTAssertFalse(result.output.contains("✗"), result.output)
        XCTAssertLessThan(Date().timeIntervalSince(started), 20)
        XCTAssertEqual(try leftovers(), [], "nothing left in TMPDIR or HOME")
        let tokens = try NSRegularExpression(pattern: "eyJ[A-Za-z0-9_-]{20,}")
        let text = result.output + result.errorOutput
        XCTAssertNil(tokens.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)), "no whole token")
        XCTAssertTrue(result.output.contains("characters)"), "tokens shown shortened")
    }

    func testEmulatorPrintsTheEnvironmentAndStopsOnSIGTERM() throws {
        let emulator = try CLIProcess(["emulator", "--port", "0"], environment: ["TMPDIR": directory.path])
        let caFile = try XCTUnwrap(try emulator.waitForOutput("export MSAL_CA_FILE='([^']+)'"), emulator.currentOutput)
        XCTAssertNotNil(try emulator.waitForOutput("Press Ctrl-C to stop", inErrorOutput: true), "a message: stderr")
        let output = emulator.currentOutput
        XCTAssertTrue(output.contains("export MSAL_CLIENT_ID='0b7f3c2e-4a1d-4e6b-9c8f-5d2a7e1b3c9f'"), output)
        XCTAssertTrue(output.contains("export MSAL_CONNECT_TO='login.microsoftonline.com:443:127.0.0.1:"), output)
        XCTAssertTrue(output.contains("https://127.0.0.1:"), output)
        XCTAssertTrue(FileManager.default.fileExists(atPath: caFile))
        emulator.send(SIGTERM)
        let result = emulator.finish(timeout: 10)
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertTrue(result.errorOutput.hasSuffix("Emulator stopped.\n"), result.errorOutput)
        XCTAssertFalse(result.output.contains("Press Ctrl-C") || result.output.contains("stopped"), result.output)
        XCTAssertEqual(try leftovers(), [], "the CA file and its folder are removed")
    }

    /// The environment block points `msal` at a cache of the emulator's own (never the user's),
    /// and `--access-token-lifetime` makes an expiry and its refresh visible from the shell.
    func testTheEnvironmentHasACacheOfItsOwnAndShortLifetimesShowARefresh() throws {
        let emulator = try CLIProcess(
            ["emulator", "--access-token-lifetime", "2", "--approve-device-codes"],
            environment: ["TMPDIR": directory.path])
        defer { _ = emulator.finish(timeout: 10) }
        _ = try XCTUnwrap(try emulator.waitForOutput("Press Ctrl-C to stop", inErrorOutput: true))
        var variables: [String: String] = ["HOME": directory.appendingPathComponent("home").path]
        for name in ["MSAL_CLIENT_ID", "MSAL_CA_FILE", "MSAL_CONNECT_TO", "MSAL_CACHE", "MSAL_CACHE_BACKEND"] {
            variables[name] = try XCTUnwrap(
                try emulator.waitForOutput("export \(name)='([^']+)'"), "\(name): \(emulator.currentOutput)")
        }
        let cache = try XCTUnwrap(variables["MSAL_CACHE"])
        XCTAssertTrue(cache.hasPrefix(directory.path), cache)
        XCTAssertEqual(variables["MSAL_CACHE_BACKEND"], "plaintext")

        let login = try CLIProcess.run(["login", "--device-code"], environment: variables)
        XCTAssertEqual(login.status, 0, login.errorOutput)
        XCTAssertTrue(FileManager.default.fileExists(atPath: cache), "the sign-in went to the emulator's cache")
        let first = try CLIProcess.run(["token", "--scopes", "User.Read"], environment: variables)
        XCTAssertEqual(first.status, 0, first.errorOutput)
        Thread.sleep(forTimeInterval: 2.5)
        let second = try CLIProcess.run(["token", "--scopes", "User.Read"], environment: variables)
        XCTAssertEqual(second.status, 0, second.errorOutput)
        XCTAssertNotEqual(first.output, second.output, "the expired token was refreshed")

        emulator.send(SIGTERM)
        XCTAssertEqual(emulator.finish(timeout: 10).status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: cache), "its cache folder is removed with it")
    }
}

/// The shell test of Docs/Testing.md (Tests/Scripts/emulator-control-test.sh) against the built
/// `msal emulator`: the app registered on the command line, the environment file, the control
/// endpoint.
final class EmulatorShellScriptTests: XCTestCase {
    func testTheShellExampleOfTheTestingGuidePasses() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scripts/emulator-control-test.sh")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [script.path]
        process.environment = CLIProcess.environment(["MSAL": try CLIProcess.executable().path])
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, text)
        XCTAssertTrue(text.contains("emulator-control-test: ok"), text)
    }

    func testBadRegistrationOptionsAreUsageErrors() throws {
        let cases: [([String], String)] = [
            (["--client-id", "not an id"], "--client-id 'not an id' is not a client id"),
            (["--user", "alice"], "--user 'alice' is not a user name"),
            (["--scopes", " , "], "--scopes needs at least one scope"),
            (["--device-code-interval", "99"], "--device-code-interval"),
            (["--access-token-lifetime", "1e30"], "--access-token-lifetime needs a number from 1"),
            (["--access-token-lifetime", "-5"], "--access-token-lifetime needs a number from 1"),
            (["--refresh-token-lifetime", "soon"], "--refresh-token-lifetime needs a number from 1"),
        ]
        for (arguments, message) in cases {
            let process = try CLIProcess(["emulator"] + arguments, environment: [:])
            let result = process.finish(timeout: 10)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.errorOutput)")
            XCTAssertTrue(result.errorOutput.contains(message), "\(arguments): \(result.errorOutput)")
        }
    }
}
