import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// The adversary inside the emulator: its real answers rewritten field by field with raw JSON
/// text, and id tokens forged (unsigned, claims of any text, another user's `client_info`).
final class EntraEmulatorRewriteTests: XCTestCase {
    private var emulator: EntraEmulator!
    private var harness: EmulatorHarness!
    private let common = "https://login.microsoftonline.com/common"

    override func setUpWithError() throws {
        emulator = try EmulatorHarness.makeEmulator()
        harness = try EmulatorHarness(emulator, timeout: 5)
    }

    override func tearDown() {
        emulator.stop()
        harness = nil
        emulator = nil
    }

    private func refreshToken() async throws -> String {
        let tokens = try await harness.signIn(common)
        return try XCTUnwrap(tokens["refresh_token"] as? String)
    }

    private func text(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    func testRewrittenFieldsAreSplicedInAsRawJSONText() async throws {
        let token = try await refreshToken()
        // Half a megabyte: under the transport's 1 MiB body limit.
        let big = String(repeating: "x", count: 1 << 19)
        emulator.inject(
            .rewriteFields([
                "expires_in": "1e30", "ext_expires_in": "-1e30", "refresh_in": "9.3e18", "expires_on": "\"1e30\"",
                "scope": "null", "foci": "[]", "big": EmulatorFault.jsonString(big), "refresh_token": nil,
            ]), at: .token, grantType: .refreshToken)
        let response = try await harness.refresh(token, at: common)
        XCTAssertEqual(response.statusCode, 200)
        let body = text(response)
        for member in [
            "\"expires_in\":1e30", "\"ext_expires_in\":-1e30", "\"refresh_in\":9.3e18", "\"expires_on\":\"1e30\"",
            "\"scope\":null", "\"foci\":[]",
        ] {
            XCTAssertTrue(body.contains(member), "\(member) in the body")
        }
        XCTAssertFalse(body.contains("refresh_token"), "a nil value removes the member")
        // Still one JSON object, and the members not named are the real answer's.
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        XCTAssertEqual((object["big"] as? String)?.count, 1 << 19)
        XCTAssertEqual(object["token_type"] as? String, "Bearer")
        XCTAssertNotNil(object["access_token"] as? String)
        XCTAssertEqual(response.headers["Content-Type"], "application/json; charset=utf-8")
        XCTAssertEqual(emulator.pendingFaultCount, 0)

        // The next answer is the real one again.
        let healthy = try EmulatorHarness.json(try await harness.refresh(token, at: common))
        XCTAssertEqual(healthy["expires_in"] as? Int, emulator.lifetimes.accessToken)
    }

    func testRewriteAppliesAtEveryEndpointWithAJSONBody() async throws {
        emulator.inject(.rewriteFields(["token_endpoint": "\"http://127.0.0.1:1/token\""]), at: .openIDConfiguration)
        let configuration = try EmulatorHarness.json(
            try await harness.get("\(common)/v2.0/.well-known/openid-configuration"))
        XCTAssertEqual(configuration["token_endpoint"] as? String, "http://127.0.0.1:1/token")
        XCTAssertNotNil(configuration["authorization_endpoint"] as? String)

        emulator.inject(.rewriteFields(["expires_in": "1e30", "interval": "\"5\""]), at: .deviceCode)
        let device = try await harness.post(
            "\(common)/oauth2/v2.0/devicecode",
            [("client_id", EmulatorHarness.clientId), ("scope", "User.Read openid offline_access")])
        XCTAssertTrue(text(device).contains("\"expires_in\":1e30"), text(device))
        XCTAssertTrue(text(device).contains("\"interval\":\"5\""), text(device))
        XCTAssertNotNil(try EmulatorHarness.json(device)["device_code"] as? String)

        // An error answer is rewritten too; a body that is not JSON is left alone.
        emulator.inject(.rewriteFields(["error_description": "\"\\u001b[2J\""]), at: .token)
        let error = try await harness.refresh("unknown", at: common)
        XCTAssertEqual(error.statusCode, 400)
        XCTAssertTrue(text(error).contains("\"error_description\":\"\\u001b[2J\""), text(error))
        emulator.inject(.rewriteFields(["x": "1"]), at: .authorize)
        let redirect = try await harness.authorize(common, extra: [("login_hint", EmulatorUser.alice.username)])
        XCTAssertNotNil(redirect["code"])
    }

    func testUnsignedIDTokenWithClaimsOfAnyText() async throws {
        let token = try await refreshToken()
        emulator.inject(
            .alterIDToken(
                .all([
                    .unsigned,
                    .claims([
                        "preferred_username": EmulatorFault.jsonString("mallory@contoso.onmicrosoft.com"),
                        "exp": "\"abc\"", "nbf": nil,
                    ]),
                ])), at: .token)
        let body = try EmulatorHarness.json(try await harness.refresh(token, at: common))
        let idToken = try XCTUnwrap(body["id_token"] as? String)
        let jwt = try JWT(compact: idToken)
        XCTAssertEqual(jwt.algorithm, "none")
        XCTAssertTrue(jwt.signature.isEmpty)
        XCTAssertTrue(idToken.hasSuffix("."), "an empty signature part")
        XCTAssertEqual(jwt.payload["preferred_username"]?.stringValue, "mallory@contoso.onmicrosoft.com")
        XCTAssertEqual(jwt.payload["exp"]?.stringValue, "abc")
        XCTAssertNil(jwt.payload["nbf"])
        XCTAssertNotNil(jwt.payload["oid"]?.stringValue, "the real claims stay")
    }

    func testClaimsAndHeaderRewritesKeepOrDropTheSignature() async throws {
        let token = try await refreshToken()
        let jwk = emulator.signingKeyJWK
        let key = try JSONWebKey(kty: "RSA", n: jwk["n"], e: jwk["e"])
        emulator.inject(.alterIDToken(.claims(["exp": "1e30", "sub": "\"someone-else\""])), at: .token)
        var body = try EmulatorHarness.json(try await harness.refresh(token, at: common))
        var jwt = try JWT(compact: try XCTUnwrap(body["id_token"] as? String))
        XCTAssertEqual(jwt.algorithm, "RS256")
        XCTAssertTrue(try jwt.verifySignature(using: key), "claims rewritten, the token re-signed")
        XCTAssertEqual(jwt.payload["exp"]?.doubleValue, 1e30)
        XCTAssertEqual(jwt.payload["sub"]?.stringValue, "someone-else")

        emulator.inject(.alterIDToken(.header(["alg": "\"HS256\"", "kid": nil])), at: .token)
        body = try EmulatorHarness.json(try await harness.refresh(token, at: common))
        jwt = try JWT(compact: try XCTUnwrap(body["id_token"] as? String))
        XCTAssertEqual(jwt.algorithm, "HS256")
        XCTAssertNil(jwt.keyID)
        XCTAssertFalse(jwt.signature.isEmpty)
    }

    func testClientInfoNamingAnotherUser() async throws {
        let token = try await refreshToken()
        emulator.inject(.alterIDToken(.clientInfo(uid: "00000000-0000-0000-0000-00000000b0b0", utid: "t1")), at: .token)
        let body = try EmulatorHarness.json(try await harness.refresh(token, at: common))
        let info = try EmulatorHarness.clientInfo(body["client_info"])
        XCTAssertEqual(info, ["uid": "00000000-0000-0000-0000-00000000b0b0", "utid": "t1"])
        XCTAssertEqual(
            try ClientInfo(raw: EmulatorFault.clientInfo(uid: "u", utid: "t")).homeAccountId, "u.t",
            "the helper builds a client_info the library reads")
    }
}
