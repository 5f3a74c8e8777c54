import Foundation
import XCTest

@testable import MSAL

/// The boundary from the typed ``TokenRequestFailure`` to the app's `NSError`: every `userInfo`
/// key and value the token client and the silent flow set before failures were typed.
final class TokenRequestFailureTests: XCTestCase {
    private let correlationId = UUID()
    private let headers = ["Content-Type": "application/json", "Retry-After": "7", "x-ms-request-id": "r-1"]

    private func response(_ status: Int, retryAfter: String? = nil) -> TokenRequestFailure.Response {
        .init(statusCode: status, headers: headers, retryAfter: retryAfter)
    }

    private func server(
        _ error: OAuthServerError, status: Int = 400, homeAccountId: String? = nil, throttled: Bool = false
    ) -> TokenRequestFailure {
        TokenRequestFailure(
            reason: .server(error, response(status)), correlationId: correlationId, homeAccountId: homeAccountId,
            isThrottled: throttled)
    }

    private let invalidGrant = OAuthServerError(
        error: "invalid_grant", errorDescription: "AADSTS70000: expired.", subError: "bad_token",
        subErrorDescription: "The token is bad.", errorCodes: [70000, 50089], correlationId: UUID().uuidString,
        displayableUserId: "alice@contoso.com")

    // MARK: - Values

    func testValuesOfEachReason() {
        let network = NSError(domain: NSURLErrorDomain, code: URLError.Code.timedOut.rawValue)
        let failures: [(TokenRequestFailure, Int?, String?, Bool, Bool)] = [
            (server(invalidGrant), 400, nil, false, true),
            (
                TokenRequestFailure(
                    reason: .unhandledResponse(response(429, retryAfter: "7")), correlationId: correlationId),
                429, "7", false, false
            ),
            (TokenRequestFailure(reason: .network(network), correlationId: correlationId), nil, nil, true, false),
            (
                TokenRequestFailure(
                    reason: .network(NSError(domain: "Swift.CancellationError", code: 1)), correlationId: correlationId),
                nil, nil, false, false
            ),
            (
                TokenRequestFailure(
                    reason: .local(
                        MSALErrors.make(.internalErrorInvalidResponse, "bad"), response(200, retryAfter: "1")),
                    correlationId: correlationId),
                200, "1", false, false
            ),
        ]
        for (failure, status, retryAfter, isNetwork, recoverable) in failures {
            XCTAssertEqual(failure.statusCode, status, "\(failure.reason)")
            XCTAssertEqual(failure.retryAfter, retryAfter, "\(failure.reason)")
            XCTAssertEqual(failure.isNetworkFailure, isNetwork, "\(failure.reason)")
            XCTAssertEqual(failure.isRecoverableByInteraction, recoverable, "\(failure.reason)")
            XCTAssertEqual(failure.serverError != nil, recoverable, "\(failure.reason)")
        }
    }

    func testRecoverableByInteractionTable() {
        let rows: [(String, String?, Bool)] = [
            ("invalid_grant", nil, true),
            ("interaction_required", "basic_action", true),
            ("consent_required", nil, true),
            ("server_error", nil, true),
            ("Invalid_Grant", "bad_token", true),
            ("invalid_scope", nil, false),
            (" INVALID_CLIENT ", nil, false),
            ("unauthorized_client", "protection_policy_required", false),
            ("unauthorized_client", nil, true),
            ("invalid_grant", " Protection_Policy_Required", false),
            ("  ", nil, false),
        ]
        for (error, subError, expected) in rows {
            XCTAssertEqual(
                OAuthServerError(error: error, subError: subError).isRecoverableByInteraction, expected,
                "\(error) + \(subError ?? "nil")")
        }
    }

    // MARK: - The app's error

    func testServerErrorKeepsEveryKey() {
        let error = MSALErrors.error(for: server(invalidGrant, homeAccountId: "uid.utid"))
        XCTAssertEqual(error.domain, MSALErrorDomain)
        XCTAssertEqual(error.code, MSALError.internal.rawValue)
        XCTAssertEqual(
            Set(error.userInfo.keys),
            [
                NSLocalizedDescriptionKey, MSALErrorDescriptionKey, MSALInternalErrorCodeKey, MSALOAuthErrorKey,
                MSALOAuthSubErrorKey, MSALOAuthSubErrorDescriptionKey, MSALSTSErrorCodesKey, MSALHTTPResponseCodeKey,
                MSALHTTPHeadersKey, MSALCorrelationIDKey,
            ])
        XCTAssertEqual(error.userInfo[MSALInternalErrorCodeKey] as? Int, -42004)
        XCTAssertEqual(error.userInfo[MSALOAuthErrorKey] as? String, "invalid_grant")
        XCTAssertEqual(error.userInfo[MSALOAuthSubErrorKey] as? String, "bad_token")
        XCTAssertEqual(error.userInfo[MSALOAuthSubErrorDescriptionKey] as? String, "The token is bad.")
        XCTAssertEqual(error.userInfo[MSALSTSErrorCodesKey] as? [Int], [70000, 50089])
        XCTAssertEqual(error.userInfo[MSALHTTPResponseCodeKey] as? String, "400")
        XCTAssertEqual(error.userInfo[MSALHTTPHeadersKey] as? [String: String], headers)
        // The request's correlation id, not the one in the server's body.
        XCTAssertEqual(error.userInfo[MSALCorrelationIDKey] as? String, correlationId.uuidString)
        XCTAssertEqual(
            error.userInfo[MSALErrorDescriptionKey] as? String,
            "The token endpoint returned the OAuth error 'invalid_grant' (suberror 'bad_token'): AADSTS70000: "
                + "expired. The grant is invalid or expired; sign the user in interactively.")
        // What the token client made before failures were typed.
        assertSame(
            error,
            MSALErrors.serverError(
                invalidGrant, endpoint: .token, httpStatusCode: 400, httpHeaders: headers,
                correlationId: correlationId, homeAccountId: "uid.utid"))
    }

    func testProtectionPolicyErrorNamesTheUserAndAccount() {
        let policy = OAuthServerError(
            error: "unauthorized_client", subError: "protection_policy_required", displayableUserId: "alice@contoso.com"
        )
        let error = MSALErrors.error(for: server(policy, homeAccountId: "uid.utid"))
        XCTAssertEqual(error.code, MSALError.serverProtectionPoliciesRequired.rawValue)
        XCTAssertEqual(error.userInfo[MSALDisplayableUserIdKey] as? String, "alice@contoso.com")
        XCTAssertEqual(error.userInfo[MSALHomeAccountIdKey] as? String, "uid.utid")
        XCTAssertEqual(error.userInfo[MSALHTTPResponseCodeKey] as? String, "400")
        // The silent flow reports it as it is.
        assertSame(MSALErrors.silentFlowError(for: server(policy, homeAccountId: "uid.utid")), error)
    }

    func testUnhandledResponses() {
        for (status, busy) in [(429, true), (500, true), (503, true), (302, false), (400, false)] {
            let failure = TokenRequestFailure(
                reason: .unhandledResponse(response(status, retryAfter: "7")), correlationId: correlationId)
            let error = MSALErrors.error(for: failure)
            XCTAssertEqual(error.domain, MSALErrorDomain)
            XCTAssertEqual(error.code, MSALError.internal.rawValue)
            XCTAssertEqual(
                Set(error.userInfo.keys),
                [
                    NSLocalizedDescriptionKey, MSALErrorDescriptionKey, MSALInternalErrorCodeKey,
                    MSALHTTPResponseCodeKey, MSALHTTPHeadersKey, MSALCorrelationIDKey,
                ])
            XCTAssertEqual(error.userInfo[MSALInternalErrorCodeKey] as? Int, -42007)
            XCTAssertEqual(error.userInfo[MSALHTTPResponseCodeKey] as? String, String(status))
            XCTAssertEqual(error.userInfo[MSALHTTPHeadersKey] as? [String: String], headers)
            XCTAssertEqual(error.userInfo[MSALCorrelationIDKey] as? String, correlationId.uuidString)
            XCTAssertEqual(
                error.userInfo[MSALErrorDescriptionKey] as? String,
                "The token endpoint answered HTTP \(status)"
                    + (busy ? ". The service is busy or unavailable; try again later." : "."))
            assertSame(MSALErrors.silentFlowError(for: failure), error)
        }
    }

    func testNetworkAndLocalFailuresAreReportedAsTheyAre() {
        let network = NSError(
            domain: NSURLErrorDomain, code: URLError.Code.timedOut.rawValue,
            userInfo: [MSALCurlErrorCodeKey: 28, MSALCurlErrorMessageKey: "Operation timed out"])
        let local = MSALErrors.make(
            .internalErrorInvalidResponse, "The token response is not JSON.", ErrorDetails(correlationId: correlationId)
        )
        for failure in [
            TokenRequestFailure(reason: .network(network), correlationId: correlationId),
            TokenRequestFailure(reason: .local(local, response(200)), correlationId: correlationId),
        ] {
            let expected: NSError
            switch failure.reason {
            case .network(let error), .local(let error, _): expected = error
            default: return XCTFail("unexpected reason")
            }
            XCTAssertTrue(MSALErrors.error(for: failure) === expected)
            XCTAssertTrue(MSALErrors.silentFlowError(for: failure) === expected)
        }
    }

    // MARK: - Silent flow and throttling

    func testSilentFlowWrapsARecoverableRefusal() {
        let failure = server(invalidGrant)
        let error = MSALErrors.silentFlowError(for: failure)
        XCTAssertEqual(error.domain, MSALErrorDomain)
        XCTAssertEqual(error.code, MSALError.interactionRequired.rawValue)
        XCTAssertEqual(
            Set(error.userInfo.keys),
            [
                NSLocalizedDescriptionKey, MSALErrorDescriptionKey, MSALOAuthErrorKey, MSALOAuthSubErrorKey,
                MSALCorrelationIDKey, NSUnderlyingErrorKey,
            ])
        XCTAssertEqual(error.userInfo[MSALErrorDescriptionKey] as? String, "User interaction is required")
        XCTAssertEqual(error.userInfo[MSALOAuthErrorKey] as? String, "invalid_grant")
        XCTAssertEqual(error.userInfo[MSALOAuthSubErrorKey] as? String, "bad_token")
        XCTAssertEqual(error.userInfo[MSALCorrelationIDKey] as? String, correlationId.uuidString)
        let underlying = try? XCTUnwrap(error.userInfo[NSUnderlyingErrorKey] as? NSError)
        assertSame(underlying ?? error, MSALErrors.error(for: failure))
        // What the silent flow made before failures were typed.
        assertSame(
            error,
            MSALErrors.make(
                .interactionRequired, "User interaction is required",
                ErrorDetails(
                    oauthError: "invalid_grant", subError: "bad_token", correlationId: correlationId,
                    underlyingError: MSALErrors.error(for: failure))))
    }

    func testThrottledFailuresAreMarkedAtTheTopOnly() {
        let wrapped = MSALErrors.silentFlowError(for: server(invalidGrant, throttled: true))
        XCTAssertEqual(wrapped.code, MSALError.interactionRequired.rawValue)
        XCTAssertEqual(wrapped.userInfo[MSALThrottlingCacheHitKey] as? Int, 1)
        XCTAssertEqual(MSALErrorInfo(wrapped).isThrottled, true)
        let underlying = wrapped.userInfo[NSUnderlyingErrorKey] as? NSError
        XCTAssertNotNil(underlying)
        XCTAssertNil(underlying?.userInfo[MSALThrottlingCacheHitKey])
        assertSame(
            wrapped,
            MSALErrors.adding(
                [MSALThrottlingCacheHitKey: 1], to: MSALErrors.silentFlowError(for: server(invalidGrant))))

        let busy = TokenRequestFailure(
            reason: .unhandledResponse(response(503)), correlationId: correlationId, isThrottled: true)
        let error = MSALErrors.error(for: busy)
        XCTAssertEqual(error.userInfo[MSALThrottlingCacheHitKey] as? Int, 1)
        XCTAssertEqual(error.userInfo[MSALInternalErrorCodeKey] as? Int, -42007)
        var sent = busy
        sent.isThrottled = false
        XCTAssertNil(MSALErrors.error(for: sent).userInfo[MSALThrottlingCacheHitKey])
    }

    func testClassifiedAtThePublicBoundaryUnchanged() {
        // The public API classifies again: a token request's error is already in its final shape.
        for failure in [server(invalidGrant), server(invalidGrant, throttled: true)] {
            for error in [MSALErrors.error(for: failure), MSALErrors.silentFlowError(for: failure)] {
                assertSame(MSALErrors.classify(error, correlationId: UUID()), error)
            }
        }
    }

    // MARK: - Helpers

    /// Same domain, code and `userInfo` (keys, and values compared by kind; underlying errors
    /// recursively).
    private func assertSame(_ actual: NSError, _ expected: NSError, file: StaticString = #filePath, line: UInt = #line)
    {
        XCTAssertEqual(actual.domain, expected.domain, file: file, line: line)
        XCTAssertEqual(actual.code, expected.code, file: file, line: line)
        XCTAssertEqual(Set(actual.userInfo.keys), Set(expected.userInfo.keys), file: file, line: line)
        for (key, value) in expected.userInfo {
            let other = actual.userInfo[key]
            switch value {
            case let error as NSError:
                guard let otherError = other as? NSError else {
                    XCTFail("\(key) is not an NSError", file: file, line: line)
                    continue
                }
                assertSame(otherError, error, file: file, line: line)
            case let text as String:
                XCTAssertEqual(other as? String, text, key, file: file, line: line)
            case let number as Int:
                XCTAssertEqual(other as? Int, number, key, file: file, line: line)
            case let numbers as [Int]:
                XCTAssertEqual(other as? [Int], numbers, key, file: file, line: line)
            case let fields as [String: String]:
                XCTAssertEqual(other as? [String: String], fields, key, file: file, line: line)
            default:
                XCTAssertEqual(
                    String(describing: other ?? "nil"), String(describing: value), key, file: file, line: line)
            }
        }
    }
}
