import Foundation

extension MSALErrors {
    /// The classified error for an OAuth error response, with the OAuth error, suberror, STS error
    /// codes, HTTP status and headers and correlation id in `userInfo`.
    ///
    /// - Parameters:
    ///   - response: the parsed error response.
    ///   - endpoint: where it came from; some suberror rules apply at the authorize endpoint only.
    ///   - httpStatusCode: the HTTP status, when the error came in an HTTP response.
    ///   - httpHeaders: the HTTP response headers, when there were any.
    ///   - correlationId: the request's correlation id.
    ///   - homeAccountId: the account the request was for; added to protection policy errors.
    static func serverError(
        _ response: OAuthServerError,
        endpoint: OAuthErrorMapping.Endpoint,
        httpStatusCode: Int? = nil,
        httpHeaders: [String: String]? = nil,
        correlationId: UUID? = nil,
        homeAccountId: String? = nil
    ) -> NSError {
        let code = OAuthErrorMapping.code(
            forOAuthError: response.error, subError: response.subError, stsErrorCodes: response.errorCodes,
            endpoint: endpoint)
        var details = ErrorDetails(
            oauthError: response.error,
            subError: response.subError,
            subErrorDescription: response.subErrorDescription,
            stsErrorCodes: response.errorCodes.isEmpty ? nil : response.errorCodes,
            httpStatusCode: httpStatusCode,
            httpHeaders: httpHeaders,
            correlationId: correlationId ?? response.correlationId.flatMap(UUID.init(uuidString:))
        )
        if code == .msal(.serverProtectionPoliciesRequired) {
            details.displayableUserId = response.displayableUserId
            details.homeAccountId = homeAccountId
        }
        return make(code, serverMessage(response, code: code, endpoint: endpoint), details)
    }

    /// "The token endpoint returned the OAuth error 'x' (suberror 'y'): description. What to do."
    private static func serverMessage(
        _ response: OAuthServerError, code: ErrorCode, endpoint: OAuthErrorMapping.Endpoint
    ) -> String {
        var message = "The \(endpoint == .token ? "token" : "authorization") endpoint returned the OAuth error '"
        message += response.error + "'"
        if let subError = response.subError, !subError.isEmpty {
            message += " (suberror '\(subError)')"
        }
        if let description = response.errorDescription?.trimmingCharacters(in: .whitespacesAndNewlines),
            !description.isEmpty
        {
            message += ": " + description
        }
        if !message.hasSuffix(".") { message += "." }
        return message + " " + advice(for: code)
    }

    private static func advice(for code: ErrorCode) -> String {
        switch code {
        case .msal(.interactionRequired):
            "Call acquireToken interactively to let the user satisfy the server's requirement."
        case .msal(.userCanceled):
            "The user cancelled or declined the sign-in; offer to try again."
        case .msal(.serverProtectionPoliciesRequired):
            "The resource requires an app protection policy this app does not satisfy."
        case .msal(.serverInvalidRequestResetPasswordRequired):
            "The user must reset the password; sign in interactively."
        case .msal(.serverError):
            "The server had a temporary problem; retry later."
        case .msal(.insufficientDeviceStrength):
            "The device does not meet the required authentication strength."
        case .msalInternal(.internalErrorInvalidClient), .msalInternal(.internalErrorUnauthorizedClient):
            "Check the client id, redirect URI and the app registration."
        case .msalInternal(.internalErrorInvalidScope):
            "Check the requested scopes against the app registration."
        case .msalInternal(.internalErrorInvalidGrant):
            "The grant is invalid or expired; sign the user in interactively."
        case .msalInternal(.internalErrorInvalidRequest):
            "Check the request parameters (authority, scopes, extra query parameters)."
        default:
            "Read MSALOAuthErrorKey and MSALSTSErrorCodesKey in userInfo for the reason."
        }
    }
}
