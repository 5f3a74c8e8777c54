import Foundation
import XCTest

@testable import MSAL

final class DeviceCodePollDecisionTests: XCTestCase {
    private func server(_ error: String) -> TokenRequestFailure {
        TokenRequestFailure(
            reason: .server(OAuthServerError(error: error), .init(statusCode: 400, headers: [:])),
            correlationId: UUID())
    }

    func testOAuthErrorsDecide() {
        let rows: [(String, DeviceCodePollDecision)] = [
            ("authorization_pending", .keepPolling),
            ("Authorization_Pending", .keepPolling),
            ("slow_down", .slowDown),
            ("expired_token", .expired),
            ("code_expired", .expired),
            ("authorization_declined", .declined(oauthError: "authorization_declined")),
            ("Access_Denied", .declined(oauthError: "access_denied")),
            ("invalid_grant", .fail),
            ("invalid_client", .fail),
            // Matched as the server wrote it, lowercased, not trimmed.
            (" authorization_pending", .fail),
        ]
        for (error, expected) in rows {
            XCTAssertEqual(DeviceCodePollDecision.decide(server(error)), expected, error)
        }
    }

    func testFailuresWithoutAnOAuthErrorEndThePolling() {
        let failures = [
            TokenRequestFailure(
                reason: .unhandledResponse(.init(statusCode: 429, headers: [:], retryAfter: "5")), correlationId: UUID()
            ),
            TokenRequestFailure(
                reason: .network(NSError(domain: NSURLErrorDomain, code: URLError.Code.timedOut.rawValue)),
                correlationId: UUID()),
            TokenRequestFailure(
                reason: .local(
                    MSALErrors.make(.internalErrorInvalidResponse, "bad", ErrorDetails(oauthError: "slow_down")),
                    .init(statusCode: 200, headers: [:])),
                correlationId: UUID()),
        ]
        for failure in failures {
            XCTAssertEqual(DeviceCodePollDecision.decide(failure), .fail, "\(failure.reason)")
        }
    }
}
