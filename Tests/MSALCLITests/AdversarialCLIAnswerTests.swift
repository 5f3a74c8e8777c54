import Foundation
import MSALTestSupport
import XCTest

/// `msal` against an emulator whose answers were rewritten into hostile ones: the tool exits
/// with an error (never a crash, never an empty token with exit 0).
final class AdversarialCLIAnswerTests: XCTestCase {
    private var environment: CLITestEnvironment!

    override func setUpWithError() throws {
        environment = try CLITestEnvironment()
    }

    override func tearDown() {
        environment?.tearDown()
    }

    func testADeviceCodeThatLivesForeverIsAnErrorNotACrash() throws {
        for value in ["1e30", "9.3e18", "\"1e30\""] {
            environment.emulator.inject(.rewriteFields(["expires_in": value]), at: .deviceCode)
            let result = try environment.run(["login", "--device-code", "--scopes", "User.Read"])
            XCTAssertEqual(result.status, 1, "\(value): \(result.errorOutput)")
            XCTAssertFalse(
                (result.output + result.errorOutput).contains("enter the code"), "\(value): the codes are never shown")
            XCTAssertTrue(result.errorOutput.contains("expires_in"), "\(value): \(result.errorOutput)")
            XCTAssertEqual(environment.emulator.tokenRequestCount(grantType: .deviceCode), 0, "\(value): no poll")
        }
    }

    func testTokenNeverPrintsAnEmptyTokenWithExitZero() throws {
        let login = try environment.start(["login", "--device-code", "--scopes", "User.Read"])
        let userCode = try XCTUnwrap(
            try login.waitForOutput("enter the code ([A-Z0-9]+)", inErrorOutput: true), login.currentErrorOutput)
        try environment.emulator.approveDeviceCode(userCode: userCode, as: EmulatorUser.bob.username)
        XCTAssertEqual(login.finish().status, 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: environment.cacheFile))

        for value: String? in [nil, "\"\""] {
            environment.emulator.inject(.rewriteFields(["access_token": value]), at: .token, grantType: .refreshToken)
            let result = try environment.run(["token", "--scopes", "User.Read", "--force-refresh"])
            XCTAssertNotEqual(result.status, 0, "access_token \(value ?? "absent"): \(result.output)")
            XCTAssertEqual(result.output, "", "nothing on standard output")
            XCTAssertTrue(result.errorOutput.contains("access_token"), result.errorOutput)
        }
        XCTAssertEqual(environment.emulator.tokenRequestCount(grantType: .refreshToken), 2)
        let after = try Data(contentsOf: URL(fileURLWithPath: environment.cacheFile))
        XCTAssertEqual(
            try Self.tokenSections(after), try Self.tokenSections(before), "the cache file's tokens are unchanged")
    }

    private static func tokenSections(_ data: Data) throws -> NSDictionary {
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return document.filter { ["AccessToken", "RefreshToken", "IdToken", "Account"].contains($0.key) }
            as NSDictionary
    }
}
