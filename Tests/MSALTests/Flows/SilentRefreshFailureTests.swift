import Foundation
import XCTest

@testable import MSAL

/// The silent flow's typed refresh failure: what the fallback and family-token decisions read.
final class SilentRefreshFailureTests: XCTestCase {
    private let correlationId = UUID()

    private func request(
        _ reason: TokenRequestFailure.Reason, throttled: Bool = false
    ) -> SilentFlow.RefreshFailure {
        .request(TokenRequestFailure(reason: reason, correlationId: correlationId, isThrottled: throttled))
    }

    private func status(_ code: Int) -> TokenRequestFailure.Response { .init(statusCode: code, headers: [:]) }

    private let timedOut = NSError(domain: NSURLErrorDomain, code: URLError.Code.timedOut.rawValue)

    func testStatusAndNetworkOnlyForRequestsThatWereSent() {
        let rows: [(String, SilentFlow.RefreshFailure, Int?, Bool)] = [
            ("no refresh token", .noRefreshToken(correlationId: correlationId), nil, false),
            ("503", request(.unhandledResponse(status(503))), 503, false),
            ("503 throttled", request(.unhandledResponse(status(503)), throttled: true), nil, false),
            ("OAuth 400", request(.server(OAuthServerError(error: "invalid_grant"), status(400))), 400, false),
            ("network", request(.network(timedOut)), nil, true),
            ("other transport error", request(.network(NSError(domain: "Other", code: 1))), nil, false),
            (
                "malformed 200",
                request(.local(MSALErrors.make(.internalErrorInvalidResponse, "bad"), status(200))), 200, false
            ),
        ]
        for (name, failure, statusCode, isNetwork) in rows {
            XCTAssertEqual(failure.statusCode, statusCode, name)
            XCTAssertEqual(failure.isNetworkFailure, isNetwork, name)
        }
    }

    func testFallbackAfterAFailure() {
        let busy = request(.unhandledResponse(status(503)))
        let network = request(.network(timedOut))
        let refused = request(.server(OAuthServerError(error: "invalid_grant"), status(400)))
        let throttled = request(.unhandledResponse(status(503)), throttled: true)
        XCTAssertTrue(SilentTokenDecision.mayFallBack(.stillValid, after: busy))
        XCTAssertTrue(SilentTokenDecision.mayFallBack(.stillValid, after: network))
        XCTAssertFalse(SilentTokenDecision.mayFallBack(.stillValid, after: refused))
        XCTAssertFalse(SilentTokenDecision.mayFallBack(.stillValid, after: throttled))
        XCTAssertFalse(
            SilentTokenDecision.mayFallBack(.stillValid, after: .noRefreshToken(correlationId: correlationId)))
        XCTAssertTrue(SilentTokenDecision.mayFallBack(.extendedLifetime, after: busy))
        XCTAssertFalse(SilentTokenDecision.mayFallBack(.extendedLifetime, after: network))
        XCTAssertFalse(SilentTokenDecision.mayFallBack(.none, after: busy))
    }

    func testFamilyTokenAfterARefusalTheUserCouldFix() {
        let rows: [(String, SilentFlow.RefreshFailure, Bool)] = [
            ("invalid_grant", request(.server(OAuthServerError(error: "invalid_grant"), status(400))), true),
            (
                "invalid_grant, throttled",
                request(.server(OAuthServerError(error: "invalid_grant"), status(400)), throttled: true), true
            ),
            ("invalid_scope", request(.server(OAuthServerError(error: "invalid_scope"), status(400))), false),
            (
                "protection policy",
                request(
                    .server(
                        OAuthServerError(error: "unauthorized_client", subError: "protection_policy_required"),
                        status(400))), false
            ),
            ("503", request(.unhandledResponse(status(503))), false),
            ("network", request(.network(timedOut)), false),
            ("no refresh token", .noRefreshToken(correlationId: correlationId), false),
        ]
        for (name, failure, expected) in rows {
            XCTAssertEqual(SilentTokenDecision.mayTryFamilyToken(after: failure), expected, name)
        }
    }

    func testTheAppsError() {
        let missing = SilentFlow.RefreshFailure.noRefreshToken(correlationId: correlationId).error
        XCTAssertEqual(missing.domain, MSALErrorDomain)
        XCTAssertEqual(missing.code, MSALError.interactionRequired.rawValue)
        XCTAssertEqual(
            missing.userInfo[MSALErrorDescriptionKey] as? String,
            "No token matching arguments found in the cache, user interaction is required")
        XCTAssertEqual(missing.userInfo[MSALCorrelationIDKey] as? String, correlationId.uuidString)

        let refused = TokenRequestFailure(
            reason: .server(OAuthServerError(error: "invalid_grant"), status(400)), correlationId: correlationId)
        let error = SilentFlow.RefreshFailure.request(refused).error
        XCTAssertEqual(error.code, MSALError.interactionRequired.rawValue)
        XCTAssertEqual(error.userInfo[MSALOAuthErrorKey] as? String, "invalid_grant")
    }

    func testSubErrorActionAfterAFailure() {
        func server(_ error: String, _ subError: String?) -> TokenRequestFailure {
            TokenRequestFailure(
                reason: .server(OAuthServerError(error: error, subError: subError), status(400)),
                correlationId: correlationId)
        }
        XCTAssertEqual(
            SubErrorAction.after(server("invalid_grant", "bad_token"), usedFamilyRefreshToken: false),
            .deleteRefreshToken)
        XCTAssertEqual(
            SubErrorAction.after(server("invalid_grant", "user_account_deleted"), usedFamilyRefreshToken: false),
            .removeAccount)
        XCTAssertEqual(
            SubErrorAction.after(server("invalid_grant", "client_mismatch"), usedFamilyRefreshToken: true),
            .clearFamilyId)
        XCTAssertEqual(
            SubErrorAction.after(server("invalid_grant", "client_mismatch"), usedFamilyRefreshToken: false), .none)
        // Without an OAuth error nothing changes, whatever the error carries.
        let local = TokenRequestFailure(
            reason: .local(
                MSALErrors.make(
                    .internalErrorInvalidResponse, "bad",
                    ErrorDetails(oauthError: "invalid_grant", subError: "bad_token")), status(200)),
            correlationId: correlationId)
        XCTAssertEqual(SubErrorAction.after(local, usedFamilyRefreshToken: true), .none)
        let busy = TokenRequestFailure(reason: .unhandledResponse(status(503)), correlationId: correlationId)
        XCTAssertEqual(SubErrorAction.after(busy, usedFamilyRefreshToken: true), .none)
    }
}
