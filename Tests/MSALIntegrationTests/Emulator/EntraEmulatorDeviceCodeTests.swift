import Foundation
import MSALTestSupport
import XCTest

@testable import MSAL

/// The device-code endpoint and the polling states of the device-code grant, driven by the clock.
final class EntraEmulatorDeviceCodeTests: XCTestCase {
    private var emulator: EntraEmulator!
    private var harness: EmulatorHarness!
    private let organizations = "https://login.microsoftonline.com/organizations"

    override func setUpWithError() throws {
        emulator = try EmulatorHarness.makeEmulator()
        harness = try EmulatorHarness(emulator)
    }

    override func tearDown() {
        emulator.stop()
        harness = nil
        emulator = nil
    }

    private func start() async throws -> [String: Any] {
        let response = try await harness.post(
            "\(organizations)/oauth2/v2.0/devicecode",
            [("client_id", EmulatorHarness.clientId), ("scope", "User.Read openid profile offline_access")])
        XCTAssertEqual(response.statusCode, 200)
        return try EmulatorHarness.json(response)
    }

    private func poll(_ deviceCode: Any?) async throws -> HTTPResponse {
        try await harness.post(
            "\(organizations)/oauth2/v2.0/token",
            [
                ("client_id", EmulatorHarness.clientId), ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
                ("device_code", try XCTUnwrap(deviceCode as? String)), ("client_info", "1"),
            ])
    }

    func testDeviceCodeResponseShape() async throws {
        let body = try await start()
        let userCode = try XCTUnwrap(body["user_code"] as? String)
        XCTAssertEqual(userCode.count, 9)
        XCTAssertNotNil(body["device_code"] as? String)
        XCTAssertEqual(body["verification_uri"] as? String, "https://microsoft.com/devicelogin")
        XCTAssertEqual(body["expires_in"] as? Int, 900)
        XCTAssertEqual(body["interval"] as? Int, 5)
        XCTAssertTrue((body["message"] as? String)?.contains(userCode) == true)
        XCTAssertEqual(emulator.pendingUserCodes, [userCode])
    }

    func testPendingSlowDownApprovalAndReplay() async throws {
        let body = try await start()
        try EmulatorHarness.assertEntraError(
            try await poll(body["device_code"]), error: "authorization_pending", code: 70_016)
        try EmulatorHarness.assertEntraError(try await poll(body["device_code"]), error: "slow_down", code: 70_016)
        emulator.advanceClock(by: 5)
        try EmulatorHarness.assertEntraError(
            try await poll(body["device_code"]), error: "authorization_pending", code: 70_016)

        try emulator.approveDeviceCode(
            userCode: try XCTUnwrap(body["user_code"] as? String), as: EmulatorUser.bob.username)
        emulator.advanceClock(by: 5)
        let response = try await poll(body["device_code"])
        XCTAssertEqual(response.statusCode, 200)
        let tokens = try EmulatorHarness.json(response)
        XCTAssertEqual(
            try EmulatorHarness.claims(tokens["id_token"])["preferred_username"]?.stringValue, EmulatorUser.bob.username
        )
        XCTAssertNotNil(tokens["refresh_token"])
        XCTAssertNotNil(tokens["client_info"])

        emulator.advanceClock(by: 5)
        try EmulatorHarness.assertEntraError(try await poll(body["device_code"]), error: "invalid_grant", code: 54_005)
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .deviceCode), 5)
        XCTAssertEqual(emulator.requestCount(.deviceCode), 1)
    }

    func testDeclinedAndExpiredCodes() async throws {
        let declined = try await start()
        try emulator.declineDeviceCode(userCode: try XCTUnwrap(declined["user_code"] as? String))
        try EmulatorHarness.assertEntraError(
            try await poll(declined["device_code"]), error: "authorization_declined", code: 65_004)

        let expiring = try await start()
        emulator.advanceClock(by: 900)
        try EmulatorHarness.assertEntraError(
            try await poll(expiring["device_code"]), error: "expired_token", code: 70_019)
        XCTAssertThrowsError(try emulator.approveDeviceCode(userCode: try XCTUnwrap(expiring["user_code"] as? String)))
        XCTAssertThrowsError(try emulator.approveDeviceCode(userCode: "NOSUCHCODE"))
        try EmulatorHarness.assertEntraError(try await poll("unknown"), error: "invalid_grant", code: 70_000)
    }

    func testIntervalZeroTurnsSlowDownOff() async throws {
        emulator.deviceCodeInterval = 0
        let body = try await start()
        XCTAssertEqual(body["interval"] as? Int, 0)
        for _ in 0..<3 {
            try EmulatorHarness.assertEntraError(
                try await poll(body["device_code"]), error: "authorization_pending", code: 70_016)
        }
    }
}
