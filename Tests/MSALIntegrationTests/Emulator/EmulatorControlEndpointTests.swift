import Foundation
import MSALTestSupport
import XCTest

@testable import MSAL

/// The control endpoint (`/.emulator/`) of an emulator started with a control token: what a test
/// in another language uses instead of ``EntraEmulator``'s Swift API.
final class EmulatorControlEndpointTests: XCTestCase {
    private var emulator: EntraEmulator!
    private var harness: EmulatorHarness!
    private let token = "control-\(UUID().uuidString)"

    override func setUpWithError() throws {
        emulator = try EmulatorHarness.makeEmulator { $0.controlToken = self.token }
        harness = try EmulatorHarness(emulator)
    }

    override func tearDown() {
        emulator.stop()
    }

    private func control(_ command: String, _ parameters: [(String, String)] = [], token: String? = nil)
        async throws -> (status: Int, json: [String: Any])
    {
        let url = try XCTUnwrap(URL(string: "\(harness.local)/.emulator/\(command)"))
        let headers = [(name: "Authorization", value: "Bearer \(token ?? self.token)")]
        let request =
            parameters.isEmpty && command == "state"
            ? HTTPRequest(url: url, headers: headers)
            : .formPost(url: url, parameters: parameters.map { (name: $0.0, value: $0.1) }, headers: headers)
        let response = try await harness.transport.send(request)
        return (response.statusCode, try EmulatorHarness.json(response))
    }

    private func requestDeviceCode(scope: String = "User.Read openid offline_access") async throws -> [String: Any] {
        try EmulatorHarness.json(
            try await harness.post(
                "\(harness.local)/organizations/oauth2/v2.0/devicecode",
                [("client_id", EmulatorHarness.clientId), ("scope", scope)]))
    }

    private func redeem(_ deviceCode: String) async throws -> [String: Any] {
        try EmulatorHarness.json(
            try await harness.post(
                "\(harness.local)/organizations/oauth2/v2.0/token",
                [
                    ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
                    ("client_id", EmulatorHarness.clientId), ("device_code", deviceCode),
                ]))
    }

    func testDeviceCodesAreApprovedAndDeclinedThroughTheEndpoint() async throws {
        let first = try await requestDeviceCode()
        let second = try await requestDeviceCode()
        let state = try await control("state")
        XCTAssertEqual(state.status, 200)
        XCTAssertEqual((state.json["pending_user_codes"] as? [String])?.count, 2)

        // Without user_code: the oldest pending one, as the default user, declining Mail.Read.
        let approved = try await control("device-codes/approve", [("username", EmulatorUser.bob.username)])
        XCTAssertEqual(approved.status, 200)
        XCTAssertEqual(approved.json["user_code"] as? String, first["user_code"] as? String)
        _ = try await control("clock", [("advance", "5")])
        let tokens = try await redeem(try XCTUnwrap(first["device_code"] as? String))
        XCTAssertNotNil(tokens["access_token"], "\(tokens)")

        _ = try await control("device-codes/decline", [("user_code", try XCTUnwrap(second["user_code"] as? String))])
        _ = try await control("clock", [("advance", "5")])
        let declined = try await redeem(try XCTUnwrap(second["device_code"] as? String))
        XCTAssertEqual(declined["error"] as? String, "authorization_declined")

        let nothing = try await control("device-codes/approve")
        XCTAssertEqual(nothing.status, 400)
        XCTAssertEqual(nothing.json["error"] as? String, "no device code is pending")
    }

    func testFaultsClockAndRefusals() async throws {
        let before = emulator.now
        let moved = try await control("clock", [("advance", "3600")])
        XCTAssertEqual(try XCTUnwrap(moved.json["now"] as? Double), before.timeIntervalSince1970 + 3600, accuracy: 5)

        let injected = try await control(
            "faults", [("endpoint", "device_code"), ("fault", "throttled"), ("retry_after", "7"), ("count", "2")])
        XCTAssertEqual(injected.json["pending_faults"] as? Int, 2)
        let throttled = try await harness.post(
            "\(harness.local)/organizations/oauth2/v2.0/devicecode",
            [("client_id", EmulatorHarness.clientId), ("scope", "User.Read")])
        XCTAssertEqual(throttled.statusCode, 429)
        XCTAssertEqual(throttled.headers["Retry-After"], "7")
        _ = try await control("faults/clear")
        XCTAssertEqual(emulator.pendingFaultCount, 0)

        let unknownFault = try await control("faults", [("endpoint", "token"), ("fault", "meteor")])
        XCTAssertEqual(unknownFault.status, 400)
        let unknownEndpoint = try await control("faults", [("endpoint", "nowhere"), ("fault", "server_error")])
        XCTAssertEqual(unknownEndpoint.status, 400)
        let unknownCommand = try await control("no-such-command", [("x", "1")])
        XCTAssertEqual(unknownCommand.status, 404)
        let wrongToken = try await control("state", token: "wrong")
        XCTAssertEqual(wrongToken.status, 401)
        XCTAssertEqual(emulator.now.timeIntervalSince(before), 3600, accuracy: 5, "a refused command changes nothing")
    }

    func testAnEmulatorWithoutAControlTokenHasNoControlEndpoint() async throws {
        let plain = try EmulatorHarness.makeEmulator()
        defer { plain.stop() }
        let response = try await EmulatorHarness(plain).post(
            "\(plain.baseURL.absoluteString)/.emulator/clock", [("advance", "60")])
        XCTAssertEqual(response.statusCode, 404)
        XCTAssertEqual(plain.now.timeIntervalSinceNow, 0, accuracy: 5)
    }
}
