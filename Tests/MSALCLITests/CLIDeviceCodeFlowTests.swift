import Foundation
import MSALTestSupport
import XCTest

/// `msal login --device-code`, then `accounts`, `token` and `logout`, run as processes against the
/// emulator in this test process, sharing one cache file.
final class CLIDeviceCodeFlowTests: XCTestCase {
    private var environment: CLITestEnvironment!

    override func setUpWithError() throws {
        environment = try CLITestEnvironment()
    }

    override func tearDown() {
        environment?.tearDown()
    }

    /// Signs Bob in with the device code flow, approving the code printed on standard output.
    private func deviceCodeLogin() throws {
        let login = try environment.start(["login", "--device-code", "--scopes", "User.Read"])
        let userCode = try XCTUnwrap(
            try login.waitForOutput("enter the code ([A-Z0-9]+)", inErrorOutput: true), login.currentErrorOutput)
        try environment.emulator.approveDeviceCode(userCode: userCode, as: EmulatorUser.bob.username)
        let result = login.finish()
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertTrue(result.output.contains("Signed in as \(EmulatorUser.bob.username)"), result.output)
    }

    func testDeviceCodeLoginAccountsTokenAndLogout() throws {
        try deviceCodeLogin()
        let emulator = environment.emulator

        let accounts = try environment.run(["accounts"])
        XCTAssertEqual(accounts.status, 0, accounts.errorOutput)
        XCTAssertEqual(accounts.output.split(separator: "\n").count, 1)
        XCTAssertTrue(accounts.output.hasPrefix(EmulatorUser.bob.username + "  "), accounts.output)

        let json = try environment.run(["accounts", "--json"])
        let list = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        XCTAssertEqual(list.count, 1)
        XCTAssertEqual(list.first?["username"] as? String, EmulatorUser.bob.username)
        let identifier = try XCTUnwrap(list.first?["identifier"] as? String)
        XCTAssertTrue(identifier.hasPrefix(EmulatorUser.bob.objectId), identifier)
        XCTAssertNotNil(list.first?["environment"] as? String)
        let profiles = try XCTUnwrap(list.first?["tenant_profiles"] as? [[String: Any]])
        XCTAssertEqual(profiles.first?["tenant_id"] as? String, EmulatorTenant.contoso.id)
        XCTAssertEqual(profiles.first?["is_home_tenant"] as? Bool, true)

        let tokenRequests = emulator.requestCount(.token)
        let plain = try environment.run(["token", "--scopes", "User.Read"])
        XCTAssertEqual(plain.status, 0, plain.errorOutput)
        XCTAssertTrue(plain.output.hasSuffix("\n"))
        let accessToken = plain.output.trimmingCharacters(in: .newlines)
        XCTAssertEqual(accessToken.split(separator: ".").count, 3, "a JWT and nothing else")
        XCTAssertEqual(plain.errorOutput, "")
        XCTAssertEqual(emulator.requestCount(.token), tokenRequests, "served from the cache file")

        let byName = try environment.run(["token", "--scopes", "User.Read", "--account", identifier, "--json"])
        XCTAssertEqual(byName.status, 0, byName.errorOutput)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(byName.output.utf8)) as? [String: Any])
        XCTAssertEqual(object["access_token"] as? String, accessToken)
        XCTAssertEqual(object["token_type"] as? String, "Bearer")
        let expiresOn = try XCTUnwrap(object["expires_on"] as? Int)
        XCTAssertGreaterThan(expiresOn, Int(Date().timeIntervalSince1970) + 3000)
        XCTAssertEqual((object["scopes"] as? [String])?.contains("User.Read"), true)
        let account = try XCTUnwrap(object["account"] as? [String: Any])
        XCTAssertEqual(account["username"] as? String, EmulatorUser.bob.username)
        XCTAssertEqual(account["identifier"] as? String, identifier)
        XCTAssertNotNil(account["environment"] as? String)
        XCTAssertEqual(object["tenant_id"] as? String, EmulatorTenant.contoso.id)
        XCTAssertTrue((object["authority"] as? String)?.hasPrefix("https://login.microsoftonline.com/") == true)
        XCTAssertNotNil(UUID(uuidString: object["correlation_id"] as? String ?? ""))

        let refreshes = emulator.tokenRequestCount(grantType: .refreshToken)
        let forced = try environment.run(["token", "--scopes", "User.Read", "--force-refresh"])
        XCTAssertEqual(forced.status, 0, forced.errorOutput)
        XCTAssertNotEqual(forced.output.trimmingCharacters(in: .newlines), accessToken)
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken), refreshes + 1)

        emulator.inject(.throttled(retryAfter: .seconds(30)), at: .token, grantType: .refreshToken)
        let throttled = try environment.run(["token", "--scopes", "User.Read", "--force-refresh"])
        XCTAssertEqual(throttled.status, 7, throttled.errorOutput)
        XCTAssertTrue(throttled.errorOutput.contains("HTTP status: 429"), throttled.errorOutput)
        XCTAssertTrue(throttled.errorOutput.contains("Retry-After: 30"), throttled.errorOutput)

        let unknown = try environment.run(["token", "--scopes", "User.Read", "--account", "nobody@contoso.com"])
        XCTAssertEqual(unknown.status, 3)
        XCTAssertEqual(unknown.output, "", "nothing on standard output")
        XCTAssertTrue(unknown.errorOutput.contains("code: -50002 (interactionRequired)"), unknown.errorOutput)
        XCTAssertTrue(unknown.errorOutput.contains("domain: MSALErrorDomain"), unknown.errorOutput)
        XCTAssertTrue(unknown.errorOutput.contains("correlation id: "), unknown.errorOutput)

        let logout = try environment.run(["logout", "--account", EmulatorUser.bob.username])
        XCTAssertEqual(logout.status, 0, logout.errorOutput)
        let none = try environment.run(["accounts"])
        XCTAssertEqual(none.status, 0)
        XCTAssertEqual(none.output, "")
        XCTAssertEqual(try environment.run(["accounts", "--json"]).output.filter { !$0.isWhitespace }, "[]")
        let afterLogout = try environment.run(["token", "--scopes", "User.Read"])
        XCTAssertEqual(afterLogout.status, 3, afterLogout.errorOutput)
        XCTAssertEqual(try environment.run(["logout", "--account", EmulatorUser.bob.username]).status, 1)
    }

    func testFirstRunWithTheDefaultCacheHasNoAccounts() throws {
        let home = environment.directory.appendingPathComponent("home").path
        let variables = environment.environment.merging(["HOME": home, "XDG_DATA_HOME": ""]) { $1 }
        let accounts = try CLIProcess.run(["accounts"], environment: variables)
        XCTAssertEqual(accounts.status, 0, accounts.errorOutput)
        XCTAssertEqual(accounts.output, "")
        let token = try CLIProcess.run(["token", "--scopes", "User.Read"], environment: variables)
        XCTAssertEqual(token.status, 3, token.errorOutput)
        XCTAssertTrue(token.errorOutput.contains("run `msal login` first"), token.errorOutput)
        // Reading creates nothing on disk: the folder (mode 0700) and the file come with the first write.
        XCTAssertFalse(FileManager.default.fileExists(atPath: home + "/.local/share/msal"))
    }

    func testControlCCancelsTheDeviceCodeLogin() throws {
        let login = try environment.start(["login", "--device-code"])
        XCTAssertNotNil(
            try login.waitForOutput("enter the code ([A-Z0-9]+)", inErrorOutput: true), login.currentErrorOutput)
        login.send(SIGINT)
        let result = login.finish(timeout: 10)
        XCTAssertEqual(result.status, 130, result.errorOutput)
        XCTAssertTrue(result.errorOutput.contains("msal: interrupted"), result.errorOutput)
        XCTAssertEqual(try environment.run(["accounts"]).output, "", "nobody signed in")
    }
}
