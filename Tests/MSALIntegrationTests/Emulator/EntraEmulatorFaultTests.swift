import Foundation
import MSALTestSupport
import XCTest

@testable import MSAL

/// Every kind of injected fault, counted per endpoint and grant type.
final class EntraEmulatorFaultTests: XCTestCase {
    private var emulator: EntraEmulator!
    private var harness: EmulatorHarness!
    private let common = "https://login.microsoftonline.com/common"

    override func setUpWithError() throws {
        emulator = try EmulatorHarness.makeEmulator()
        harness = try EmulatorHarness(emulator, timeout: 2)
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

    func testAnyStatusBodyAndHeadersForTheNextNRequests() async throws {
        let url = "\(common)/v2.0/.well-known/openid-configuration"
        emulator.inject(
            .response(status: 503, body: Data("{\"x\":1}".utf8), headers: ["X-Test": "yes"]),
            at: .openIDConfiguration, count: 2)
        for _ in 0..<2 {
            let response = try await harness.get(url)
            XCTAssertEqual(response.statusCode, 503)
            XCTAssertEqual(response.headers["X-Test"], "yes")
            XCTAssertEqual(response.headers["Content-Type"], "application/json; charset=utf-8")
            XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "{\"x\":1}")
        }
        let recovered = try await harness.get(url)
        XCTAssertEqual(recovered.statusCode, 200)
        XCTAssertEqual(emulator.requestCount(.openIDConfiguration), 3)
        XCTAssertEqual(emulator.pendingFaultCount, 0)
    }

    func testThrottlingWithRetryAfterSecondsAndDate() async throws {
        let token = try await refreshToken()
        let date = Date(timeIntervalSince1970: 1_900_000_000)
        emulator.inject(.throttled(retryAfter: .seconds(30)), at: .token)
        emulator.inject(.throttled(status: 503, retryAfter: .date(date)), at: .token)
        var response = try await harness.refresh(token, at: common)
        try EmulatorHarness.assertEntraError(response, status: 429, error: "temporarily_unavailable", code: 50_196)
        XCTAssertEqual(response.headers["Retry-After"], "30")
        response = try await harness.refresh(token, at: common)
        XCTAssertEqual(response.statusCode, 503)
        XCTAssertEqual(response.headers["Retry-After"], "Sun, 17 Mar 2030 17:46:40 GMT")
    }

    func testDelayDropAndTruncation() async throws {
        let url = "\(common)/discovery/v2.0/keys"
        emulator.inject(.delay(seconds: 0.3), at: .keys)
        let start = Date()
        let delayed = try await harness.get(url)
        XCTAssertEqual(delayed.statusCode, 200)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.29)

        // libcurl silently resends a request once when a kept-alive connection closes before any
        // answer, so a dropped connection is injected twice; a partial answer is never resent.
        for (fault, count) in [(EmulatorFault.dropConnection, 2), (.truncatedResponse, 1)] {
            emulator.inject(fault, at: .keys, count: count)
            do {
                let response = try await harness.get(url)
                XCTFail("expected a network failure for \(fault), got HTTP \(response.statusCode)")
            } catch {
                XCTAssertEqual((error as NSError).domain, NSURLErrorDomain, "\(fault)")
            }
        }
        let recovered = try await harness.get(url)
        XCTAssertEqual(recovered.statusCode, 200)
    }

    func testEntraErrorsAtTheTokenEndpointForOneGrantType() async throws {
        let token = try await refreshToken()
        let cases: [(EmulatorFault, String, Int, String?)] = [
            (.invalidGrant(suberror: "bad_token"), "invalid_grant", 70_000, "bad_token"),
            (.invalidGrant(suberror: "basic_action"), "invalid_grant", 70_000, "basic_action"),
            (.interactionRequired(), "interaction_required", 50_076, nil),
            (
                .protectionPolicyRequired(username: "alice@contoso.onmicrosoft.com"), "unauthorized_client", 53_005,
                "protection_policy_required"
            ),
            (.passwordChangeRequired, "invalid_request", 50_142, nil),
        ]
        for (fault, error, code, suberror) in cases {
            emulator.inject(fault, at: .token, grantType: .refreshToken)
            let body = try EmulatorHarness.assertEntraError(
                try await harness.refresh(token, at: common), error: error, code: code, suberror: suberror)
            if suberror == "protection_policy_required" {
                XCTAssertEqual(body["adi"] as? String, "alice@contoso.onmicrosoft.com")
            }
        }
        emulator.inject(
            .claimsChallenge("{\"access_token\":{\"acrs\":{\"essential\":true,\"value\":\"c1\"}}}"), at: .token)
        let challenged = try EmulatorHarness.assertEntraError(
            try await harness.refresh(token, at: common), error: "interaction_required", code: 50_076)
        XCTAssertEqual(
            challenged["claims"] as? String, "{\"access_token\":{\"acrs\":{\"essential\":true,\"value\":\"c1\"}}}")

        // A fault for the refresh grant leaves the code grant alone and waits for its grant type.
        emulator.inject(.serverError(status: 500), at: .token, grantType: .refreshToken)
        _ = try await harness.signIn(common)
        let failed = try await harness.refresh(token, at: common)
        try EmulatorHarness.assertEntraError(failed, status: 500, error: "server_error", code: 90_033)
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken), 7)
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .authorizationCode), 2)
    }

    func testB2CForgotPasswordAtAuthorizeAndToken() async throws {
        let b2c = emulator.authority(.b2c(tenant: "contosob2c.onmicrosoft.com", policy: "B2C_1_signin")).absoluteString
        emulator.inject(.b2cForgotPassword, at: .authorize)
        let redirect = try await harness.authorize(b2c, extra: [("login_hint", EmulatorUser.dave.username)])
        XCTAssertEqual(redirect["error"], "access_denied")
        XCTAssertTrue(redirect["error_description"]?.hasPrefix("AADB2C90118: ") == true)
        XCTAssertEqual(redirect["state"], "state-123")

        emulator.inject(.b2cForgotPassword, at: .token)
        let response = try await harness.post(
            "\(b2c)/oauth2/v2.0/token",
            [("client_id", EmulatorHarness.clientId), ("grant_type", "refresh_token"), ("refresh_token", "x")])
        XCTAssertEqual(response.statusCode, 400)
        let body = try EmulatorHarness.json(response)
        XCTAssertEqual(body["error"] as? String, "access_denied")
        XCTAssertTrue((body["error_description"] as? String)?.hasPrefix("AADB2C90118: ") == true)
        XCTAssertNil(body["error_codes"])
    }

    func testDeclinedScopesAtAuthorizeAndToken() async throws {
        let scope = "User.Read Mail.Read openid offline_access"
        emulator.inject(.declineScopes(["https://graph.microsoft.com/Mail.Read"]), at: .authorize)
        var tokens = try await harness.signIn(common, scope: scope)
        XCTAssertEqual(tokens["scope"] as? String, "User.Read openid email")
        emulator.resetConsent(username: EmulatorUser.alice.username, clientId: EmulatorHarness.clientId)

        emulator.inject(.declineScopes(["User.Read"]), at: .token)
        tokens = try await harness.signIn(common, scope: scope)
        XCTAssertEqual(tokens["scope"] as? String, "Mail.Read openid email")
        tokens = try await harness.signIn(common, scope: scope)
        XCTAssertEqual(tokens["scope"] as? String, "User.Read Mail.Read openid email")
    }

    func testOAuthErrorAtAuthorizeBecomesAnErrorRedirect() async throws {
        emulator.inject(.interactionRequired(suberror: "additional_action"), at: .authorize)
        let redirect = try await harness.authorize(common)
        XCTAssertEqual(redirect["error"], "interaction_required")
        XCTAssertEqual(redirect["suberror"], "additional_action")
        XCTAssertNil(redirect["code"])
    }

    func testRequestLogRecordsWhatTheClientSent() async throws {
        _ = try await harness.signIn(common, extra: [("login_hint", EmulatorUser.bob.username)])
        let authorize = try XCTUnwrap(emulator.recentRequests(to: .authorize).first)
        XCTAssertEqual(authorize.method, "GET")
        XCTAssertEqual(authorize.queryValue("code_challenge_method"), "S256")
        XCTAssertEqual(authorize.queryValue("login_hint"), EmulatorUser.bob.username)
        let token = try XCTUnwrap(emulator.recentRequests(to: .token).first)
        XCTAssertEqual(token.method, "POST")
        XCTAssertEqual(token.formValue("grant_type"), "authorization_code")
        XCTAssertNotNil(token.formValue("code_verifier"))
        XCTAssertEqual(token.header("return-client-request-id"), "true")
        XCTAssertEqual(token.header("x-client-SKU"), "MSAL.Linux.Swift")
        XCTAssertEqual(emulator.totalRequestCount, 2)
        emulator.resetCounters()
        XCTAssertEqual(emulator.totalRequestCount, 0)
        XCTAssertTrue(emulator.recentRequests.isEmpty)
    }
}
