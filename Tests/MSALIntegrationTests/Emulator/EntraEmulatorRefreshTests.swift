import Foundation
import MSALTestSupport
import XCTest

@testable import MSAL

/// The refresh-token grant: rotation, family refresh tokens, revocation and expiry.
final class EntraEmulatorRefreshTests: XCTestCase {
    private var emulator: EntraEmulator!
    private var harness: EmulatorHarness!
    private let common = "https://login.microsoftonline.com/common"

    override func setUpWithError() throws {
        emulator = try EmulatorHarness.makeEmulator()
        harness = try EmulatorHarness(emulator)
    }

    override func tearDown() {
        emulator.stop()
        harness = nil
        emulator = nil
    }

    private func refreshToken(clientId: String = EmulatorHarness.clientId) async throws -> String {
        let tokens = try await harness.signIn(common, clientId: clientId)
        return try XCTUnwrap(tokens["refresh_token"] as? String)
    }

    func testRotationKeepsOldTokensValidByDefault() async throws {
        let first = try await refreshToken()
        let response = try await harness.refresh(first, at: common)
        XCTAssertEqual(response.statusCode, 200)
        let second = try XCTUnwrap(try EmulatorHarness.json(response)["refresh_token"] as? String)
        XCTAssertNotEqual(first, second)
        XCTAssertTrue(emulator.isRefreshTokenValid(first))
        let again = try await harness.refresh(first, at: common)
        XCTAssertEqual(again.statusCode, 200)
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken), 2)
    }

    func testRotateAndRevokeOldRejectsReplay() async throws {
        emulator.refreshTokenRotation = .rotateAndRevokeOld
        let first = try await refreshToken()
        let again = try await harness.refresh(first, at: common)
        XCTAssertEqual(again.statusCode, 200)
        try EmulatorHarness.assertEntraError(
            try await harness.refresh(first, at: common), error: "invalid_grant", code: 50_173)
    }

    func testReuseReturnsTheSameRefreshToken() async throws {
        emulator.refreshTokenRotation = .reuse
        let first = try await refreshToken()
        let body = try EmulatorHarness.json(try await harness.refresh(first, at: common))
        XCTAssertEqual(body["refresh_token"] as? String, first)
    }

    func testFamilyRefreshTokensWorkAcrossFamilyMembersOnly() async throws {
        let tokens = try await harness.signIn(common, clientId: EmulatorClient.familyAppOne.clientId)
        XCTAssertEqual(tokens["foci"] as? String, "1")
        let familyToken = try XCTUnwrap(tokens["refresh_token"] as? String)

        let response = try await harness.refresh(
            familyToken, at: common, clientId: EmulatorClient.familyAppTwo.clientId)
        XCTAssertEqual(response.statusCode, 200)
        let body = try EmulatorHarness.json(response)
        XCTAssertEqual(body["foci"] as? String, "1")
        XCTAssertEqual(
            try EmulatorHarness.claims(body["id_token"])["aud"]?.stringValue, EmulatorClient.familyAppTwo.clientId)

        try EmulatorHarness.assertEntraError(
            try await harness.refresh(familyToken, at: common, clientId: EmulatorHarness.clientId),
            error: "invalid_grant", code: 70_000, suberror: "client_mismatch")
        let appToken = try await refreshToken()
        try EmulatorHarness.assertEntraError(
            try await harness.refresh(appToken, at: common, clientId: EmulatorClient.familyAppOne.clientId),
            error: "invalid_grant", code: 70_000, suberror: "client_mismatch")
    }

    func testRevokedExpiredUnknownAndDeletedUserTokens() async throws {
        let revoked = try await refreshToken()
        XCTAssertEqual(emulator.revokeRefreshTokens(for: EmulatorUser.alice.username), 1)
        try EmulatorHarness.assertEntraError(
            try await harness.refresh(revoked, at: common), error: "invalid_grant", code: 50_173)

        let expired = try await refreshToken()
        XCTAssertGreaterThanOrEqual(emulator.expireRefreshTokens(for: EmulatorUser.alice.username), 1)
        try EmulatorHarness.assertEntraError(
            try await harness.refresh(expired, at: common), error: "invalid_grant", code: 700_082)

        let aged = try await refreshToken()
        emulator.advanceClock(by: 91 * 86400)
        XCTAssertFalse(emulator.isRefreshTokenValid(aged))
        try EmulatorHarness.assertEntraError(
            try await harness.refresh(aged, at: common), error: "invalid_grant", code: 700_082)

        try EmulatorHarness.assertEntraError(
            try await harness.refresh("not-a-token", at: common), error: "invalid_grant", code: 9_002_313,
            suberror: "bad_token")

        let orphan = try await refreshToken()
        emulator.removeUser(username: EmulatorUser.alice.username)
        try EmulatorHarness.assertEntraError(
            try await harness.refresh(orphan, at: common), error: "invalid_grant", code: 50_034,
            suberror: "user_account_deleted")
    }

    func testLifetimesRefreshInAndClockShapeNewTokens() async throws {
        emulator.lifetimes = EmulatorTokenLifetimes(accessToken: 600, extendedAccessToken: 1200, refreshIn: 300)
        emulator.advanceClock(by: 3600)
        let tokens = try await harness.signIn(common)
        XCTAssertEqual(tokens["expires_in"] as? Int, 600)
        XCTAssertEqual(tokens["ext_expires_in"] as? Int, 1200)
        XCTAssertEqual(tokens["refresh_in"] as? Int, 300)
        let access = try EmulatorHarness.claims(tokens["access_token"])
        let iat = try XCTUnwrap(access["iat"]?.intValue)
        XCTAssertEqual(access["exp"]?.intValue, iat + 600)
        XCTAssertEqual(Double(iat), emulator.now.timeIntervalSince1970, accuracy: 5)
        XCTAssertEqual(Double(iat), Date().timeIntervalSince1970 + 3600, accuracy: 5)
    }

    func testRefreshForAGuestTenantAndHomeRetargeting() async throws {
        let token = try await refreshToken()
        let fabrikam = "https://login.microsoftonline.com/\(EmulatorTenant.fabrikam.id)"
        var body = try EmulatorHarness.json(try await harness.refresh(token, at: fabrikam))
        XCTAssertEqual(try EmulatorHarness.claims(body["id_token"])["tid"]?.stringValue, EmulatorTenant.fabrikam.id)
        body = try EmulatorHarness.json(try await harness.refresh(token, at: common))
        XCTAssertEqual(try EmulatorHarness.claims(body["id_token"])["tid"]?.stringValue, EmulatorTenant.contoso.id)
        let elsewhere = "https://login.microsoftonline.com/\(EmulatorTenant.contosoCIAM.id)"
        try EmulatorHarness.assertEntraError(
            try await harness.refresh(token, at: elsewhere), error: "invalid_request", code: 50_020)
    }
}
