import Foundation
import MSALTestSupport
import XCTest

/// The default account (`msal token` and `msal logout` with several accounts signed in), known
/// authorities and instance discovery, and the sign-in on a machine without a browser.
final class CLIAccountsAndAuthoritiesTests: XCTestCase {
    private var environment: CLITestEnvironment!

    override func setUpWithError() throws {
        environment = try CLITestEnvironment { $0.additionalHostNames = [Self.stackHost] }
    }

    override func tearDown() {
        environment?.tearDown()
    }

    /// An Entra-shaped host that is not Microsoft's (an Azure Stack Hub, a private cloud).
    private static let stackHost = "login.stack.test"

    private func username(ofToken arguments: [String] = []) throws -> String? {
        let result = try environment.run(["token", "--scopes", "User.Read", "-o", "json"] + arguments)
        XCTAssertEqual(result.status, 0, result.errorOutput)
        let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        return (object?["account"] as? [String: Any])?["username"] as? String
    }

    func testDefaultAccountWithSeveralSignedIn() throws {
        let alice = EmulatorUser.alice.username
        let bob = EmulatorUser.bob.username
        XCTAssertEqual(try environment.deviceCodeLogin(as: bob).status, 0)
        XCTAssertEqual(try environment.deviceCodeLogin(as: alice).status, 0)

        let listed = try environment.run(["accounts"]).output.split(separator: "\n")
        XCTAssertEqual(listed.count, 2)
        XCTAssertTrue(listed.contains { $0.hasPrefix(alice) && $0.hasSuffix("  (default)") }, "\(listed)")
        XCTAssertTrue(listed.contains { $0.hasPrefix(bob) && !$0.hasSuffix("(default)") }, "\(listed)")
        XCTAssertEqual(try username(ofToken: []), alice, "the last login is the default")

        let cacheBefore = try Data(contentsOf: URL(fileURLWithPath: environment.cacheFile))
        let set = try environment.run(["accounts", "--set-default", bob])
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: environment.cacheFile)), cacheBefore,
            "the shared cache file is left as it is")
        XCTAssertEqual(set.status, 0, set.errorOutput)
        XCTAssertTrue(set.errorOutput.contains("Default account: \(bob)"), set.errorOutput)
        XCTAssertEqual(set.output, "")
        let json = try environment.run(["accounts", "-o", "json"]).output
        let list = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        XCTAssertEqual(list.first { $0["is_default"] as? Bool == true }?["username"] as? String, bob)
        XCTAssertEqual(try username(ofToken: []), bob)

        // The tool's own file, beside the cache.
        let defaults = environment.directory.appendingPathComponent("msal_cli_defaults.json")
        let attributes = try FileManager.default.attributesOfItem(atPath: defaults.path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let stored = try JSONSerialization.jsonObject(with: Data(contentsOf: defaults)) as? [String: Any]
        let defaultAccounts = stored?["default_accounts"] as? [String: String]
        XCTAssertEqual(defaultAccounts?[environment.clientId]?.hasPrefix(EmulatorUser.bob.objectId), true)
        // A damaged defaults file counts as no default: with two accounts, say how to choose.
        try Data("not json".utf8).write(to: defaults)
        let ambiguous = try environment.run(["token", "--scopes", "User.Read"])
        XCTAssertEqual(ambiguous.status, 2, ambiguous.errorOutput)
        XCTAssertTrue(ambiguous.errorOutput.contains("--set-default"), ambiguous.errorOutput)
        XCTAssertEqual(ambiguous.output, "")
        XCTAssertEqual(try environment.run(["accounts", "--set-default", bob]).status, 0)

        let logout = try environment.run(["logout"])
        XCTAssertEqual(logout.status, 0, logout.errorOutput)
        XCTAssertTrue(logout.errorOutput.contains("Signed out \(bob)"), logout.errorOutput)
        let remaining = try environment.run(["accounts"]).output
        XCTAssertTrue(remaining.hasPrefix(alice) && remaining.hasSuffix("  (default)\n"), remaining)
        XCTAssertEqual(try username(ofToken: []), alice, "one account: no default needed")
    }

    func testKnownAuthorityAndInstanceDiscoveryOff() throws {
        let authority = "https://\(Self.stackHost)/\(EmulatorTenant.contoso.id)"
        let bob = EmulatorUser.bob.username
        let refused = try environment.run(["login", "--device-code", "--authority", authority])
        XCTAssertEqual(refused.status, 1, refused.errorOutput)
        XCTAssertTrue(
            refused.errorOutput.contains("-42010"), "validated at login.microsoftonline.com: \(refused.errorOutput)")
        XCTAssertEqual(environment.emulator.requestCount(.deviceCode), 0)

        let login = try environment.deviceCodeLogin(
            as: bob, ["--authority", authority, "--known-authority", authority])
        XCTAssertEqual(login.status, 0, login.errorOutput)
        XCTAssertTrue(login.output.contains("authority: \(authority)"), login.output)

        let fromEnvironment = try environment.run(
            ["token", "--scopes", "User.Read", "--authority", authority, "--force-refresh"],
            extra: ["MSAL_KNOWN_AUTHORITIES": "https://other.example/x, \(authority)"])
        XCTAssertEqual(fromEnvironment.status, 0, fromEnvironment.errorOutput)
        let noDiscovery = try environment.run(
            ["token", "--scopes", "User.Read", "--authority", authority, "--force-refresh", "--no-instance-discovery"])
        XCTAssertEqual(noDiscovery.status, 0, noDiscovery.errorOutput)
        let variable = try environment.run(
            ["token", "--scopes", "User.Read", "--authority", authority, "--force-refresh"],
            extra: ["MSAL_INSTANCE_DISCOVERY": "off"])
        XCTAssertEqual(variable.status, 0, variable.errorOutput)
        let validated = try environment.run([
            "token", "--scopes", "User.Read", "--authority", authority, "--force-refresh",
        ])
        XCTAssertEqual(validated.status, 1, "without either, validation fails again: \(validated.errorOutput)")
    }

    /// No `$BROWSER` and no display: in a script the command fails at once and names the device
    /// code flow; on a terminal it prints the sign-in address and how to continue, and waits.
    func testSignInWithoutABrowser() throws {
        let headless = ["DISPLAY": "", "WAYLAND_DISPLAY": ""]
        let started = Date()
        let script = try environment.run(["login"], extra: headless)
        XCTAssertEqual(script.status, 1, script.errorOutput)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        XCTAssertTrue(script.errorOutput.contains("no browser can be opened here"), script.errorOutput)
        XCTAssertTrue(script.errorOutput.contains("`msal login --device-code`"), script.errorOutput)
        XCTAssertEqual(environment.emulator.requestCount(.authorize), 0)

        let msal = try CLIProcess.executable().path
        let command = "\(msal) login --timeout 3 --cache \(environment.cacheFile)"
        for extra in [headless, headless.merging(["BROWSER": "/nonexistent/browser"]) { $1 }] {
            let terminal = try environment.runInTerminal(command, extra: extra.merging(["TERM": "dumb"]) { $1 })
            XCTAssertEqual(terminal.status, 124, terminal.output)
            XCTAssertTrue(terminal.output.contains("No browser can be opened here"), terminal.output)
            XCTAssertTrue(
                terminal.output.contains("https://login.microsoftonline.com/common/oauth2/v2.0/authorize?"),
                terminal.output)
            XCTAssertTrue(terminal.output.contains("ssh -L "), terminal.output)
            XCTAssertTrue(terminal.output.contains("`msal login --device-code`"), terminal.output)
        }
    }

    /// On a terminal without a browser, the printed address is how the user continues: opened in
    /// a browser that reaches this machine (here the curl browser script), the sign-in completes.
    func testThePrintedAddressCompletesTheSignIn() throws {
        let script = "/usr/bin/script"
        guard FileManager.default.isExecutableFile(atPath: script) else { throw XCTSkip("script is not installed") }
        let browser = try environment.browserScript()
        let log = environment.directory.appendingPathComponent("terminal.log")
        let msal = try CLIProcess.executable().path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        process.arguments = ["-qfec", "\(msal) login --timeout 30 --cache \(environment.cacheFile)", log.path]
        process.environment = CLIProcess.environment(
            environment.environment.merging(["DISPLAY": "", "WAYLAND_DISPLAY": "", "TERM": "dumb"]) { $1 })
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let pattern = try NSRegularExpression(
            pattern: "https://login\\.microsoftonline\\.com/common/oauth2/v2\\.0/authorize\\?\\S+")
        var address: String?
        let deadline = Date().addingTimeInterval(20)
        while address == nil, Date() < deadline, process.isRunning {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let match = pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                let range = Range(match.range, in: text)
            {
                address = String(text[range])
            } else {
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        let url = try XCTUnwrap(address, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
        let open = Process()
        open.executableURL = URL(fileURLWithPath: browser)
        open.arguments = [url]
        try open.run()
        open.waitUntilExit()
        while process.isRunning && Date() < deadline.addingTimeInterval(20) { Thread.sleep(forTimeInterval: 0.05) }
        let text = try String(contentsOf: log, encoding: .utf8)
        XCTAssertEqual(process.terminationStatus, 0, text)
        XCTAssertTrue(text.contains("Signed in as \(EmulatorUser.alice.username)"), text)
        XCTAssertTrue(try environment.run(["accounts"]).output.hasPrefix(EmulatorUser.alice.username))
    }
}
