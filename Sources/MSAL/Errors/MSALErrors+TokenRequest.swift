import Foundation

extension MSALErrors {
    /// The error an app receives for a failed token request: the one place a
    /// ``TokenRequestFailure`` becomes an `NSError`.
    ///
    /// - An OAuth error body: ``serverError(_:endpoint:httpStatusCode:httpHeaders:correlationId:homeAccountId:)``
    ///   (the mapped code, `MSALOAuthErrorKey`, `MSALOAuthSubErrorKey`, `MSALSTSErrorCodesKey`, the HTTP
    ///   status and headers, the correlation id).
    /// - Another status: -42007 (unhandled response) with the HTTP status, headers and correlation id.
    /// - A network or local failure: that error, as it is.
    /// - Answered by the throttling cache: ``MSALThrottlingCacheHitKey`` = 1 as well.
    static func error(for failure: TokenRequestFailure) -> NSError {
        markedThrottled(requestError(failure), failure)
    }

    /// The error the silent flow reports for a failed refresh-token redemption: when the failure
    /// ``TokenRequestFailure/isRecoverableByInteraction``, ``MSALError/interactionRequired`` ("User
    /// interaction is required") with the OAuth error and suberror copied and ``error(for:)``
    /// underlying; otherwise ``error(for:)`` itself.
    static func silentFlowError(for failure: TokenRequestFailure) -> NSError {
        guard let serverError = failure.serverError, serverError.isRecoverableByInteraction else {
            return error(for: failure)
        }
        let details = ErrorDetails(
            oauthError: serverError.error,
            subError: serverError.subError,
            correlationId: failure.correlationId,
            underlyingError: requestError(failure)
        )
        return markedThrottled(make(.interactionRequired, userInteractionRequiredMessage, details), failure)
    }

    /// The message of the interaction-required error that wraps a rejected silent refresh.
    static let userInteractionRequiredMessage = "User interaction is required"

    private static func requestError(_ failure: TokenRequestFailure) -> NSError {
        switch failure.reason {
        case .server(let serverError, let response):
            return self.serverError(
                serverError, endpoint: .token, httpStatusCode: response.statusCode, httpHeaders: response.headers,
                correlationId: failure.correlationId, homeAccountId: failure.homeAccountId)
        case .unhandledResponse(let response):
            let busy = response.statusCode == 429 || response.statusCode >= 500
            return make(
                .internalErrorUnhandledResponse,
                "The token endpoint answered HTTP \(response.statusCode)"
                    + (busy ? ". The service is busy or unavailable; try again later." : "."),
                ErrorDetails(
                    httpStatusCode: response.statusCode, httpHeaders: response.headers,
                    correlationId: failure.correlationId))
        case .network(let error), .local(let error, _):
            return error
        }
    }

    private static func markedThrottled(_ error: NSError, _ failure: TokenRequestFailure) -> NSError {
        failure.isThrottled ? adding([MSALThrottlingCacheHitKey: 1], to: error) : error
    }
}
