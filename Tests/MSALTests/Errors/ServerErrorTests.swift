import Foundation
import XCTest

@testable import MSAL

final class ServerErrorTests: XCTestCase {
    private let correlationId = UUID()

    func testParsesTokenEndpointJSON() throws {
        let body = """
            {"error":"invalid_grant","error_description":"AADSTS70000: The grant has expired.",
             "error_codes":[70000, 50089],"suberror":"bad_token","correlation_id":"\(correlationId.uuidString)",
             "trace_id":"t-1","timestamp":"2026-11-29 10:00:00Z"}
            """
        let parsed = try XCTUnwrap(OAuthServerError(jsonData: Data(body.utf8)))
        XCTAssertEqual(parsed.error, "invalid_grant")
        XCTAssertEqual(parsed.errorDescription, "AADSTS70000: The grant has expired.")
        XCTAssertEqual(parsed.errorCodes, [70000, 50089])
        XCTAssertEqual(parsed.subError, "bad_token")
        XCTAssertEqual(parsed.correlationId, correlationId.uuidString)
        XCTAssertEqual(parsed.traceId, "t-1")
    }

    func testParsingRejectsNonErrors() {
        XCTAssertNil(OAuthServerError(jsonData: Data(#"{"access_token":"x"}"#.utf8)))
        XCTAssertNil(OAuthServerError(jsonData: Data(#"{"error":"  "}"#.utf8)))
        XCTAssertNil(OAuthServerError(jsonData: Data(#"{"error":42}"#.utf8)))
        XCTAssertNil(OAuthServerError(jsonData: Data("not json".utf8)))
        XCTAssertNil(OAuthServerError(jsonData: Data("[1,2]".utf8)))
        XCTAssertNil(OAuthServerError(jsonData: Data()))
        XCTAssertNil(OAuthServerError(parameters: ["code": "x"]))
        // Odd shapes of error_codes are ignored, not fatal.
        XCTAssertEqual(OAuthServerError(jsonData: Data(#"{"error":"x","error_codes":"50142"}"#.utf8))?.errorCodes, [])
        XCTAssertEqual(
            OAuthServerError(jsonData: Data(#"{"error":"x","error_codes":[1.5,"2",null,3]}"#.utf8))?.errorCodes,
            [1, 2, 3])
    }

    func testParsesAuthorizeRedirectParameters() throws {
        let parsed = try XCTUnwrap(
            OAuthServerError(parameters: [
                "error": "access_denied", "error_description": "The user cancelled.", "error_subcode": "cancel",
                "error_codes": "50058, 16000",
            ]))
        XCTAssertEqual(parsed.subError, "cancel")
        XCTAssertEqual(parsed.errorCodes, [50058, 16000])
        let error = MSALErrors.serverError(parsed, endpoint: .authorize, correlationId: correlationId)
        XCTAssertEqual(error.code, MSALError.userCanceled.rawValue)
    }

    func testServerErrorCarriesTheServerFacts() {
        let response = OAuthServerError(
            error: "invalid_request", errorDescription: "AADSTS50142: Password reset required.", errorCodes: [50142])
        let error = MSALErrors.serverError(
            response, endpoint: .token, httpStatusCode: 400, httpHeaders: ["x-ms-request-id": "abc"],
            correlationId: correlationId)
        XCTAssertEqual(error.code, MSALError.serverInvalidRequestResetPasswordRequired.rawValue)
        XCTAssertEqual(error.userInfo[MSALOAuthErrorKey] as? String, "invalid_request")
        XCTAssertEqual(error.userInfo[MSALSTSErrorCodesKey] as? [Int], [50142])
        XCTAssertEqual(error.userInfo[MSALHTTPResponseCodeKey] as? String, "400")
        XCTAssertEqual(error.userInfo[MSALHTTPHeadersKey] as? [String: String], ["x-ms-request-id": "abc"])
        XCTAssertEqual(error.userInfo[MSALCorrelationIDKey] as? String, correlationId.uuidString)
        let message = error.localizedDescription
        XCTAssertTrue(message.contains("token endpoint"), message)
        XCTAssertTrue(message.contains("invalid_request"), message)
        XCTAssertTrue(message.contains("AADSTS50142"), message)
        XCTAssertTrue(message.contains("reset the password"), message)
    }

    func testServerCorrelationIdIsUsedWhenTheRequestHasNone() {
        let server = UUID()
        let error = MSALErrors.serverError(
            OAuthServerError(error: "invalid_grant", correlationId: server.uuidString), endpoint: .token)
        XCTAssertEqual(error.userInfo[MSALCorrelationIDKey] as? String, server.uuidString)
    }

    func testProtectionPolicyAddsUserIdentifiers() {
        let response = OAuthServerError(
            error: "unauthorized_client", subError: "protection_policy_required", displayableUserId: "alice@contoso.com"
        )
        let error = MSALErrors.serverError(response, endpoint: .token, homeAccountId: "uid.utid")
        XCTAssertEqual(error.code, MSALError.serverProtectionPoliciesRequired.rawValue)
        XCTAssertEqual(error.userInfo[MSALDisplayableUserIdKey] as? String, "alice@contoso.com")
        XCTAssertEqual(error.userInfo[MSALHomeAccountIdKey] as? String, "uid.utid")
        XCTAssertEqual(error.userInfo[MSALOAuthSubErrorKey] as? String, "protection_policy_required")

        let other = MSALErrors.serverError(
            OAuthServerError(error: "invalid_grant", displayableUserId: "alice@contoso.com"), endpoint: .token,
            homeAccountId: "uid.utid")
        XCTAssertNil(other.userInfo[MSALDisplayableUserIdKey])
        XCTAssertNil(other.userInfo[MSALHomeAccountIdKey])
    }

    // MARK: - Silent flow wrapping

    private func tokenFailure(_ error: String, subError: String? = nil) -> TokenRequestFailure {
        TokenRequestFailure(
            reason: .server(
                OAuthServerError(error: error, errorDescription: "desc", subError: subError),
                .init(statusCode: 400, headers: [:])),
            correlationId: correlationId)
    }

    func testSilentFlowWrapsRecoverableServerErrors() {
        for oauthError in [
            "invalid_grant", "interaction_required", "consent_required", "server_error", "Invalid_Grant",
        ] {
            let failure = tokenFailure(oauthError, subError: "basic_action")
            XCTAssertTrue(failure.isRecoverableByInteraction, oauthError)
            let wrapped = MSALErrors.silentFlowError(for: failure)
            XCTAssertEqual(wrapped.domain, MSALErrorDomain)
            XCTAssertEqual(wrapped.code, MSALError.interactionRequired.rawValue, oauthError)
            XCTAssertEqual(wrapped.userInfo[MSALErrorDescriptionKey] as? String, "User interaction is required")
            XCTAssertEqual(wrapped.userInfo[MSALOAuthErrorKey] as? String, oauthError)
            XCTAssertEqual(wrapped.userInfo[MSALOAuthSubErrorKey] as? String, "basic_action")
            XCTAssertEqual(wrapped.userInfo[MSALCorrelationIDKey] as? String, correlationId.uuidString)
            let underlying = wrapped.userInfo[NSUnderlyingErrorKey] as? NSError
            XCTAssertEqual(underlying?.userInfo[MSALOAuthErrorKey] as? String, oauthError)
            XCTAssertEqual(underlying?.userInfo[MSALHTTPResponseCodeKey] as? String, "400")
        }
    }

    func testSilentFlowKeepsNonRecoverableErrors() {
        let cases = [
            tokenFailure("invalid_scope"),
            tokenFailure("INVALID_CLIENT"),
            tokenFailure("unauthorized_client", subError: "protection_policy_required"),
            TokenRequestFailure(
                reason: .local(MSALErrors.make(.internalErrorInvalidResponse, "no OAuth error"), nil),
                correlationId: correlationId),
            tokenFailure("  "),
            TokenRequestFailure(
                reason: .network(NSError(domain: NSURLErrorDomain, code: URLError.Code.timedOut.rawValue)),
                correlationId: correlationId),
        ]
        for failure in cases {
            XCTAssertFalse(failure.isRecoverableByInteraction, "\(failure)")
            let result = MSALErrors.silentFlowError(for: failure)
            let plain = MSALErrors.error(for: failure)
            XCTAssertEqual(result.code, MSALErrors.classify(plain).code)
            XCTAssertEqual(result.domain, plain.domain)
            XCTAssertEqual(result.userInfo as NSDictionary, plain.userInfo as NSDictionary)
        }
    }

    // MARK: - Suberror side effects

    func testSubErrorActions() {
        let rows: [(String?, String?, Bool, SubErrorAction)] = [
            ("invalid_grant", "bad_token", false, .deleteRefreshToken),
            ("INVALID_GRANT", "Bad_Token", true, .deleteRefreshToken),
            ("invalid_grant", "user_account_deleted", false, .removeAccount),
            ("invalid_grant", "client_mismatch", true, .clearFamilyId),
            ("invalid_grant", "client_mismatch", false, .none),
            ("interaction_required", "bad_token", false, .none),
            ("invalid_grant", "basic_action", false, .none),
            ("invalid_grant", nil, true, .none),
            (nil, nil, false, .none),
        ]
        for (error, subError, family, expected) in rows {
            XCTAssertEqual(
                SubErrorAction.forServerError(oauthError: error, subError: subError, usedFamilyRefreshToken: family),
                expected, "\(error ?? "nil") + \(subError ?? "nil")")
        }
    }
}
