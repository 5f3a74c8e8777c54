import Foundation
import MSALTestSupport
import XCTest

/// `--resource` of `msal login` and `msal token` on the wire: with an AD FS authority the RFC 8707
/// `resource` goes on the sign-in's requests and on later refreshes; with Entra ID it becomes the
/// scope `<resource>/.default` and no `resource` is sent.
final class CLIResourceIndicatorTests: XCTestCase {
    private var environment: CLITestEnvironment!
    private let resource = "https://api.contoso.com/orders"

    override func setUpWithError() throws {
        environment = try CLITestEnvironment()
    }

    override func tearDown() {
        environment?.tearDown()
    }

    /// The emulator's AD FS farm as the authority of every command.
    private var adfs: [String: String] {
        ["MSAL_AUTHORITY": environment.emulator.authority(.adfs).absoluteString]
    }

    private func resourceValues(_ records: [EmulatorRequestRecord]) -> [String?] {
        records.map { record in
            record.formItems.first { $0.name == "resource" }?.value
                ?? record.queryItems.first { $0.name == "resource" }?.value
        }
    }

    func testDeviceCodeLoginAndLaterRefreshesNameTheResource() throws {
        let emulator = environment.emulator
        let login = try environment.deviceCodeLogin(
            as: EmulatorUser.frank.username, ["--resource", resource, "-o", "json"], extra: adfs)
        XCTAssertEqual(login.status, 0, login.errorOutput)
        XCTAssertTrue(login.output.contains(#""tenant_id" : "adfs""#), login.output)
        XCTAssertEqual(resourceValues(emulator.recentRequests(to: .deviceCode)), [resource])
        let polls = emulator.recentRequests(to: .token)
        XCTAssertFalse(polls.isEmpty)
        XCTAssertEqual(Set(resourceValues(polls)), [resource], "every poll names the resource")

        // The token the sign-in got for the resource is cached for it: no request.
        let token = try environment.run(["token", "--scopes", "User.Read", "--resource", resource], extra: adfs)
        XCTAssertEqual(token.status, 0, token.errorOutput)
        XCTAssertFalse(token.output.isEmpty)
        XCTAssertEqual(emulator.recentRequests(to: .token).count, polls.count)
        // A refresh names it.
        let forced = try environment.run(
            ["token", "--scopes", "User.Read", "--resource", resource, "--force-refresh"], extra: adfs)
        XCTAssertEqual(forced.status, 0, forced.errorOutput)
        XCTAssertNotEqual(forced.output, token.output)
        let refresh = try XCTUnwrap(emulator.recentRequests(to: .token).last)
        XCTAssertEqual(refresh.formValue("grant_type"), "refresh_token")
        XCTAssertEqual(refresh.formValue("resource"), resource)
        XCTAssertEqual(emulator.recentRequests(to: .token).count, polls.count + 1)
    }

    func testBrowserLoginNamesTheResourceOnAuthorizeAndCodeRedemption() throws {
        let browser = try environment.browserScript()
        let username = EmulatorUser.frank.username
        environment.emulator.signInDecision = { _ in .signIn(username: username) }
        let login = try environment.run(
            ["login", "--scopes", "User.Read", "--resource", resource],
            extra: adfs.merging(["BROWSER": browser]) { $1 })
        XCTAssertEqual(login.status, 0, login.errorOutput)
        XCTAssertEqual(resourceValues(environment.emulator.recentRequests(to: .authorize)), [resource])
        let redemption = try XCTUnwrap(environment.emulator.recentRequests(to: .token).last)
        XCTAssertEqual(redemption.formValue("grant_type"), "authorization_code")
        XCTAssertEqual(redemption.formValue("resource"), resource)
    }

    func testAResourceThatIsNoAbsoluteHTTPSURIWithoutFragmentIsAUsageError() throws {
        for (value, message) in [
            ("http://api.contoso.com", "is not an https URI"), ("https://api.contoso.com/#x", "has a fragment"),
            ("orders", "is not an absolute URI"),
        ] {
            for arguments in [
                ["login", "--device-code", "--resource", value],
                ["token", "--scopes", "User.Read", "--resource", value],
            ] {
                let result = try environment.run(arguments, extra: adfs)
                XCTAssertEqual(result.status, 2, "\(arguments): \(result.errorOutput)")
                XCTAssertTrue(result.errorOutput.contains(message), "\(arguments): \(result.errorOutput)")
                XCTAssertTrue(result.errorOutput.contains("RFC 8707"), result.errorOutput)
            }
        }
        XCTAssertEqual(environment.emulator.totalRequestCount, 0, "nothing was sent")
    }

    func testWithEntraIDTheResourceIsItsDefaultScope() throws {
        let login = try environment.start(["login", "--device-code", "--resource", "https://graph.microsoft.com"])
        let userCode = try XCTUnwrap(try login.waitForOutput("enter the code ([A-Z0-9]+)", inErrorOutput: true))
        try environment.emulator.approveDeviceCode(userCode: userCode, as: EmulatorUser.alice.username)
        let result = login.finish()
        XCTAssertEqual(result.status, 0, result.errorOutput)
        let device = try XCTUnwrap(environment.emulator.recentRequests(to: .deviceCode).last)
        XCTAssertTrue(
            device.formValue("scope")?.split(separator: " ").contains("https://graph.microsoft.com/.default") == true,
            device.formValue("scope") ?? "")
        XCTAssertEqual(resourceValues(environment.emulator.recentRequests(to: .deviceCode)), [nil])
        XCTAssertEqual(Set(resourceValues(environment.emulator.recentRequests(to: .token))), [nil])
    }
}
