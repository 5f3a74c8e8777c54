import Foundation
import MSALTestSupport
import XCTest

/// `msal` in scripts and pipes: results alone on standard output, `--timeout`, SIGTERM, no
/// animation without a terminal that can show it, output formats with Azure CLI's fields.
final class CLIScriptingTests: XCTestCase {
    private var environment: CLITestEnvironment!

    override func setUpWithError() throws {
        environment = try CLITestEnvironment()
    }

    override func tearDown() {
        environment?.tearDown()
    }

    /// `acct=$(msal login --device-code)`: the code reaches the user (standard error), the
    /// variable gets the account only.
    func testStandardOutputCarriesOnlyResults() throws {
        let login = try environment.deviceCodeLogin(as: EmulatorUser.bob.username, ["-o", "tsv"])
        XCTAssertEqual(login.status, 0, login.errorOutput)
        let fields = login.output.trimmingCharacters(in: .newlines).components(separatedBy: "\t")
        XCTAssertEqual(fields.count, 3, login.output)
        XCTAssertEqual(fields.first, EmulatorUser.bob.username)
        XCTAssertEqual(fields.last, EmulatorTenant.contoso.id)
        XCTAssertTrue(login.errorOutput.contains("enter the code"), login.errorOutput)
        XCTAssertFalse(login.output.contains("enter the code"), login.output)

        let logout = try environment.run(["logout"])
        XCTAssertEqual(logout.status, 0, logout.errorOutput)
        XCTAssertEqual(logout.output, "", "a message, not a result")
        XCTAssertTrue(logout.errorOutput.contains("Signed out \(EmulatorUser.bob.username)"), logout.errorOutput)
    }

    /// A token endpoint that never answers: `--timeout 2` (a global option, before the command)
    /// ends the command after 2 seconds with exit code 124, instead of 2 x 300 s of curl timeouts.
    func testTimeoutStopsATokenRequestToAStalledServer() throws {
        XCTAssertEqual(try environment.deviceCodeLogin(as: EmulatorUser.bob.username).status, 0)
        environment.emulator.inject(.delay(seconds: 3600), at: .token, grantType: .refreshToken)
        let started = Date()
        let result = try environment.run(
            ["--verbose", "--timeout", "2", "token", "--scopes", "User.Read", "--force-refresh"])
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(result.status, 124, result.errorOutput)
        XCTAssertGreaterThanOrEqual(seconds, 2)
        XCTAssertLessThan(seconds, 10, "the stalled request is abandoned")
        XCTAssertEqual(result.output, "")
        XCTAssertTrue(result.errorOutput.contains("msal: timed out after 2 s (--timeout)"), result.errorOutput)
        XCTAssertTrue(result.errorOutput.contains("[msal "), "--verbose before the command applies")
        XCTAssertEqual(environment.emulator.tokenRequestCount(grantType: .refreshToken), 1, "sent once")
    }

    /// SIGTERM cancels the device code login as Ctrl-C does: polling stops, nothing is cached,
    /// exit code 143 (128 + 15) instead of dying on the signal.
    func testSIGTERMCancelsTheLoginCleanly() throws {
        let login = try environment.start(["login", "--device-code"])
        XCTAssertNotNil(
            try login.waitForOutput("enter the code ([A-Z0-9]+)", inErrorOutput: true), login.currentErrorOutput)
        login.send(SIGTERM)
        let result = login.finish(timeout: 10)
        XCTAssertEqual(result.status, 143, result.errorOutput)
        XCTAssertTrue(result.errorOutput.contains("msal: terminated (SIGTERM)"), result.errorOutput)
        XCTAssertEqual(try environment.run(["accounts"]).output, "", "nobody signed in")
    }

    /// A cached token needs no network, so `msal token` does not load libcurl at all: with a broken
    /// `libcurl.so.4` first on the library path it still prints the token, and a command that must
    /// reach the server fails with a message naming libcurl instead of the process not starting.
    func testACachedTokenNeedsNoLibcurl() throws {
        XCTAssertEqual(try environment.deviceCodeLogin(as: EmulatorUser.bob.username).status, 0)
        let cached = try environment.run(["token", "--scopes", "User.Read"])
        XCTAssertEqual(cached.status, 0, cached.errorOutput)
        let folder = environment.directory.appendingPathComponent("broken-libcurl")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("not a shared library\n".utf8).write(to: folder.appendingPathComponent("libcurl.so.4"))
        let broken = ["LD_LIBRARY_PATH": folder.path]

        let again = try environment.run(["token", "--scopes", "User.Read"], extra: broken)
        XCTAssertEqual(again.status, 0, again.errorOutput)
        XCTAssertEqual(again.output, cached.output)

        let refreshes = environment.emulator.tokenRequestCount(grantType: .refreshToken)
        let network = try environment.run(["token", "--scopes", "User.Read", "--force-refresh"], extra: broken)
        XCTAssertEqual(network.status, 1, network.errorOutput)
        XCTAssertEqual(network.output, "")
        XCTAssertTrue(network.errorOutput.contains("libcurl.so.4 could not be loaded"), network.errorOutput)
        XCTAssertEqual(environment.emulator.tokenRequestCount(grantType: .refreshToken), refreshes)
        XCTAssertEqual(try environment.run(["token", "--scopes", "User.Read"]).output, cached.output, "cache intact")
    }

    /// On a terminal the device code wait shows a spinner; with `TERM=dumb` (or no terminal, as in
    /// every other test) a plain line instead.
    func testNoAnimationWithDumbTerminal() throws {
        let msal = try CLIProcess.executable().path
        let command = "\(msal) login --device-code --timeout 2 --cache \(environment.cacheFile)"
        let fancy = try environment.runInTerminal(command, extra: ["TERM": "xterm"])
        XCTAssertEqual(fancy.status, 124, fancy.output)
        XCTAssertTrue(fancy.output.contains("\u{1B}[2K⠋ Waiting for you to sign in"), fancy.output)
        let dumb = try environment.runInTerminal(command, extra: ["TERM": "dumb"])
        XCTAssertEqual(dumb.status, 124, dumb.output)
        XCTAssertTrue(dumb.output.contains("Waiting for the sign-in to finish"), dumb.output)
        XCTAssertFalse(dumb.output.contains("\u{1B}["), "no control sequence: \(dumb.output)")
        XCTAssertFalse(dumb.output.contains("⠋"), dumb.output)
    }

    /// `-o json|tsv|none`, Azure CLI's fields, `--scope`, `--resource` and `--tenant`.
    func testOutputFormatsAndAzureCLISpellings() throws {
        XCTAssertEqual(try environment.deviceCodeLogin(as: EmulatorUser.alice.username).status, 0)
        let json = try environment.run(["token", "--scope", "User.Read", "-o", "json"])
        XCTAssertEqual(json.status, 0, json.errorOutput)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let token = try XCTUnwrap(object["accessToken"] as? String)
        XCTAssertEqual(object["access_token"] as? String, token)
        XCTAssertEqual(object["tokenType"] as? String, "Bearer")
        XCTAssertEqual(object["tenant"] as? String, EmulatorTenant.contoso.id)
        let expiresOn = try XCTUnwrap(object["expires_on"] as? Int)
        let local = try XCTUnwrap(object["expiresOn"] as? String)
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSSSSS"
        formatter.locale = Locale(identifier: "en_US_POSIX")
        XCTAssertEqual(formatter.date(from: local)?.timeIntervalSince1970, Double(expiresOn), local)
        for key in ["scopes", "account", "tenant_id", "authority", "correlation_id", "token_type"] {
            XCTAssertNotNil(object[key], key)
        }

        let tsv = try environment.run(["token", "--scopes", "User.Read", "--output=tsv"])
        XCTAssertEqual(tsv.output.last, "\n")
        XCTAssertEqual(
            tsv.output.dropLast().components(separatedBy: "\t"),
            [token, local, String(expiresOn), EmulatorTenant.contoso.id, "Bearer"])
        let none = try environment.run(["token", "--scopes", "User.Read", "-o", "none"])
        XCTAssertEqual(none.status, 0, none.errorOutput)
        XCTAssertEqual(none.output, "")

        let resource = try environment.run(["token", "--resource", "https://graph.microsoft.com", "-o", "json"])
        XCTAssertEqual(resource.status, 0, resource.errorOutput)
        let sent = try XCTUnwrap(environment.emulator.recentRequests(to: .token).last)
        XCTAssertEqual(
            sent.formValue("scope")?.split(separator: " ").contains("https://graph.microsoft.com/.default"), true,
            sent.formValue("scope") ?? "")

        let guest = try environment.run([
            "token", "--scopes", "User.Read", "--tenant", EmulatorTenant.fabrikam.id, "-o", "tsv",
        ])
        XCTAssertEqual(guest.status, 0, guest.errorOutput)
        XCTAssertEqual(
            guest.output.components(separatedBy: "\t").dropFirst(3).first, EmulatorTenant.fabrikam.id, guest.output)

        let accounts = try environment.run(["accounts", "-o", "tsv"])
        XCTAssertEqual(accounts.output.split(separator: "\n").count, 1, accounts.output)
        let columns = accounts.output.trimmingCharacters(in: .newlines).components(separatedBy: "\t")
        XCTAssertEqual(columns.first, EmulatorUser.alice.username)
        XCTAssertEqual(columns.last, "true", "the only account is the default")
    }
}
