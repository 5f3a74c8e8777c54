import XCTest

@testable import MSAL

final class OAuthErrorMappingTests: XCTestCase {
    private struct Row {
        var error: String?
        var subError: String?
        var stsCodes: [Int] = []
        var endpoint: OAuthErrorMapping.Endpoint
        var expected: ErrorCode
        var line: UInt = #line
    }

    private let rows: [Row] = [
        // The table, at both endpoints.
        Row(error: "invalid_request", endpoint: .token, expected: .msalInternal(.internalErrorInvalidRequest)),
        Row(error: "invalid_request", endpoint: .authorize, expected: .msalInternal(.internalErrorInvalidRequest)),
        Row(error: "invalid_client", endpoint: .token, expected: .msalInternal(.internalErrorInvalidClient)),
        Row(error: "invalid_client", endpoint: .authorize, expected: .msalInternal(.internalErrorInvalidClient)),
        Row(error: "invalid_scope", endpoint: .token, expected: .msalInternal(.internalErrorInvalidScope)),
        Row(error: "invalid_scope", endpoint: .authorize, expected: .msalInternal(.internalErrorInvalidScope)),
        Row(error: "invalid_grant", endpoint: .token, expected: .msalInternal(.internalErrorInvalidGrant)),
        Row(error: "invalid_grant", endpoint: .authorize, expected: .msalInternal(.internalErrorInvalidGrant)),
        Row(error: "unauthorized_client", endpoint: .token, expected: .msalInternal(.internalErrorUnauthorizedClient)),
        Row(
            error: "unauthorized_client", endpoint: .authorize,
            expected: .msalInternal(.internalErrorUnauthorizedClient)),
        Row(error: "interaction_required", endpoint: .token, expected: .msal(.interactionRequired)),
        Row(error: "interaction_required", endpoint: .authorize, expected: .msal(.interactionRequired)),
        Row(error: "access_denied", endpoint: .token, expected: .msal(.userCanceled)),
        Row(error: "access_denied", endpoint: .authorize, expected: .msal(.userCanceled)),
        Row(error: "tokenTransferFailedOTC", endpoint: .token, expected: .msal(.userCanceled)),
        Row(error: "tokenTransferFailedOTC", endpoint: .authorize, expected: .msal(.userCanceled)),
        Row(error: "server_error", endpoint: .token, expected: .msal(.serverError)),
        Row(error: "server_error", endpoint: .authorize, expected: .msal(.serverError)),
        // Unknown errors: ServerOauth at /token, AuthorizationFailed at /authorize; both -42104.
        Row(error: "consent_required", endpoint: .token, expected: .msalInternal(.internalErrorAuthorizationFailed)),
        Row(error: "login_required", endpoint: .authorize, expected: .msalInternal(.internalErrorAuthorizationFailed)),
        Row(
            error: "temporarily_unavailable", endpoint: .token,
            expected: .msalInternal(.internalErrorAuthorizationFailed)),
        Row(error: nil, endpoint: .token, expected: .msalInternal(.internalErrorAuthorizationFailed)),
        Row(error: "  ", endpoint: .authorize, expected: .msalInternal(.internalErrorAuthorizationFailed)),
        // Case-insensitive and trimmed.
        Row(error: "INVALID_GRANT", endpoint: .token, expected: .msalInternal(.internalErrorInvalidGrant)),
        Row(error: " Interaction_Required ", endpoint: .token, expected: .msal(.interactionRequired)),
        Row(error: "TOKENTRANSFERFAILEDOTC", endpoint: .token, expected: .msal(.userCanceled)),
        // invalid_request + 50142 (reset password), anywhere in error_codes.
        Row(
            error: "invalid_request", stsCodes: [50142], endpoint: .token,
            expected: .msal(.serverInvalidRequestResetPasswordRequired)),
        Row(
            error: "invalid_request", stsCodes: [70011, 50142], endpoint: .authorize,
            expected: .msal(.serverInvalidRequestResetPasswordRequired)),
        Row(
            error: "invalid_grant", stsCodes: [50142], endpoint: .token,
            expected: .msalInternal(.internalErrorInvalidGrant)),
        // Authorize-only suberror rules.
        Row(
            error: "invalid_grant", subError: "transfer_token_expired", endpoint: .authorize,
            expected: .msal(.userCanceled)),
        Row(
            error: "invalid_grant", subError: "transfer_token_expired", endpoint: .token,
            expected: .msalInternal(.internalErrorInvalidGrant)),
        Row(error: "access_denied", subError: "tts_denied", endpoint: .authorize, expected: .msal(.userCanceled)),
        Row(error: "access_denied", subError: "user_skipped", endpoint: .authorize, expected: .msal(.userCanceled)),
        Row(
            error: "invalid_grant", subError: "insufficient_device_strength", endpoint: .authorize,
            expected: .msal(.insufficientDeviceStrength)),
        Row(
            error: "invalid_grant", subError: "INSUFFICIENT_DEVICE_STRENGTH", endpoint: .authorize,
            expected: .msal(.insufficientDeviceStrength)),
        Row(
            error: "invalid_grant", subError: "insufficient_device_strength", endpoint: .token,
            expected: .msalInternal(.internalErrorInvalidGrant)),
        // Protection policy.
        Row(
            error: "unauthorized_client", subError: "protection_policy_required", endpoint: .token,
            expected: .msal(.serverProtectionPoliciesRequired)),
        Row(
            error: "unauthorized_client", subError: "Protection_Policy_Required", endpoint: .authorize,
            expected: .msal(.serverProtectionPoliciesRequired)),
        // Suberrors without a mapping of their own.
        Row(
            error: "invalid_grant", subError: "basic_action", endpoint: .token,
            expected: .msalInternal(.internalErrorInvalidGrant)),
        Row(
            error: "interaction_required", subError: "consent_required", endpoint: .token,
            expected: .msal(.interactionRequired)),
    ]

    func testEveryRow() {
        for row in rows {
            let code = OAuthErrorMapping.code(
                forOAuthError: row.error, subError: row.subError, stsErrorCodes: row.stsCodes, endpoint: row.endpoint)
            XCTAssertEqual(code, row.expected, "\(row.error ?? "nil") + \(row.subError ?? "nil")", line: row.line)
        }
    }

    func testClassifiedPublicShapeOfEveryRow() {
        // What the app finally sees: only the recoverable codes stay top-level.
        for row in rows {
            let code = OAuthErrorMapping.code(
                forOAuthError: row.error, subError: row.subError, stsErrorCodes: row.stsCodes, endpoint: row.endpoint)
            let error = MSALErrors.make(code, "test")
            if MSALErrors.recoverableCodes.contains(code.rawValue) {
                XCTAssertEqual(error.code, code.rawValue, line: row.line)
                XCTAssertNil(error.userInfo[MSALInternalErrorCodeKey], line: row.line)
            } else {
                XCTAssertEqual(error.code, MSALError.internal.rawValue, line: row.line)
                XCTAssertEqual(error.userInfo[MSALInternalErrorCodeKey] as? Int, code.rawValue, line: row.line)
            }
        }
    }

    func testInsufficientDeviceStrengthSurfacesAsInternal() {
        let error = MSALErrors.serverError(
            OAuthServerError(error: "invalid_grant", subError: "insufficient_device_strength"), endpoint: .authorize)
        XCTAssertEqual(error.code, -50000)
        XCTAssertEqual(error.userInfo[MSALInternalErrorCodeKey] as? Int, -50007)
    }

    func testServerErrorSurfacesAsInternal() {
        let error = MSALErrors.serverError(OAuthServerError(error: "server_error"), endpoint: .token)
        XCTAssertEqual(error.code, -50000)
        XCTAssertEqual(error.userInfo[MSALInternalErrorCodeKey] as? Int, -50006)
    }
}
