import Foundation
import MSALTestSupport
import XCTest

@testable import msal_cli

/// `msal login` in the system browser: `$BROWSER` is a script that fetches the sign-in page with
/// curl and follows the emulator's redirect to the tool's loopback listener.
final class CLIBrowserLoginTests: XCTestCase {
    private var environment: CLITestEnvironment!

    override func setUpWithError() throws {
        environment = try CLITestEnvironment()
    }

    override func tearDown() {
        environment?.tearDown()
    }

    func testBrowserLoginThenDeclinedScopesThenNetworkFailure() throws {
        let browser = try environment.browserScript()
        let login = try environment.run(["login", "--scopes", "User.Read"], extra: ["BROWSER": browser])
        XCTAssertEqual(login.status, 0, login.errorOutput)
        XCTAssertTrue(login.output.contains("Signed in as \(EmulatorUser.alice.username)"), login.output)
        let opened = try String(
            contentsOf: environment.directory.appendingPathComponent("browser.url"), encoding: .utf8)
        XCTAssertTrue(opened.hasPrefix("https://login.microsoftonline.com/common/oauth2/v2.0/authorize?"), opened)
        let authorize = try XCTUnwrap(environment.emulator.recentRequests(to: .authorize).last)
        XCTAssertTrue(authorize.queryValue("redirect_uri")?.hasPrefix("http://localhost:") == true)
        XCTAssertEqual(authorize.queryValue("code_challenge_method"), "S256")
        XCTAssertEqual(environment.emulator.signIns.count, 1)

        let username = EmulatorUser.alice.username
        environment.emulator.signInDecision = { _ in .signIn(username: username, declinedScopes: ["Mail.Read"]) }
        let declined = try environment.run(["login", "--scopes", "User.Read Mail.Read"], extra: ["BROWSER": browser])
        XCTAssertEqual(declined.status, 6, declined.errorOutput)
        XCTAssertTrue(declined.errorOutput.contains("declined scopes: Mail.Read"), declined.errorOutput)
        XCTAssertTrue(declined.errorOutput.contains("code: -50003 (serverDeclinedScopes)"), declined.errorOutput)

        environment.emulator.stop()
        let offline = try environment.run(["token", "--scopes", "User.Read", "--force-refresh"])
        XCTAssertEqual(offline.status, 4, offline.errorOutput)
        XCTAssertTrue(offline.errorOutput.contains("domain: NSURLErrorDomain"), offline.errorOutput)
        XCTAssertEqual(offline.output, "")
    }

    func testBrowserThatCannotStartFailsWithTheLibraryError() throws {
        let result = try environment.run(["login"], extra: ["BROWSER": "/nonexistent/browser"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.errorOutput.contains("Cannot open the system browser"), result.errorOutput)
        XCTAssertTrue(result.errorOutput.contains("code: -50000 (internal)"), result.errorOutput)
        XCTAssertTrue(
            result.errorOutput.contains(
                "no browser could be started; sign in from any device with `msal login --device-code`"),
            result.errorOutput)
        XCTAssertEqual(result.output, "")
    }

    /// A browser that opens the page and never comes back (here one that does nothing): after a
    /// few seconds the command says, once, where it waits, then `--timeout` ends it.
    func testAWaitForTheBrowserIsSaidOnceAfterAFewSeconds() throws {
        let result = try environment.run(
            ["login", "--scopes", "User.Read", "--timeout", "8"], extra: ["BROWSER": "/bin/true"])
        XCTAssertEqual(result.status, 124, result.errorOutput)
        let said = result.errorOutput.components(separatedBy: "waiting for the browser to come back to ")
        XCTAssertEqual(said.count, 2, result.errorOutput)
        XCTAssertTrue(said.last?.hasPrefix("http://localhost:") == true, result.errorOutput)
        XCTAssertTrue(result.errorOutput.contains("such as curl, never does"), result.errorOutput)
    }

    func testTheWaitingMessageNamesTheRedirectOfTheAuthorizeAddress() throws {
        let url = try XCTUnwrap(
            URL(string: "https://h/common/oauth2/v2.0/authorize?client_id=c&redirect_uri=http%3A%2F%2F127.0.0.1%3A5123")
        )
        XCTAssertEqual(BrowserSignIn.redirectURI(url), "http://127.0.0.1:5123")
        XCTAssertEqual(BrowserSignIn.redirectPort(url), 5123)
        XCTAssertTrue(BrowserSignIn.waitingMessage(redirectURI: nil).contains("loopback redirect URI"))
    }
}
