import Foundation

extension MSALErrors {
    /// The message of the interaction-required error that wraps a rejected silent refresh.
    static let userInteractionRequiredMessage = "User interaction is required"

    /// Whether a refresh-token redemption failure should reach the app as
    /// ``MSALError/interactionRequired``: it carries a non-blank OAuth error that is not
    /// `invalid_scope`, `invalid_client` or a protection policy requirement.
    static func isRecoverableByInteraction(_ error: NSError) -> Bool {
        guard let oauthError = error.userInfo[MSALOAuthErrorKey] as? String else { return false }
        switch OAuthErrorMapping.normalized(oauthError) {
        case "", "invalid_scope", "invalid_client":
            return false
        default:
            break
        }
        if error.domain == MSALErrorDomain && error.code == MSALError.serverProtectionPoliciesRequired.rawValue {
            return false
        }
        return !OAuthErrorMapping.isProtectionPolicyRequired(subError: error.userInfo[MSALOAuthSubErrorKey] as? String)
    }

    /// The error the silent flow reports for a failed refresh-token redemption: when
    /// ``isRecoverableByInteraction(_:)`` holds, ``MSALError/interactionRequired`` ("User interaction
    /// is required") with the OAuth error and suberror copied and `serverError` underlying;
    /// otherwise `serverError` itself, classified.
    static func silentFlowError(wrapping serverError: NSError, correlationId: UUID? = nil) -> NSError {
        guard isRecoverableByInteraction(serverError) else {
            return classify(serverError, correlationId: correlationId)
        }
        let correlation = correlationId ?? (serverError.userInfo[MSALCorrelationIDKey] as? String).flatMap(UUID.init)
        let details = ErrorDetails(
            oauthError: serverError.userInfo[MSALOAuthErrorKey] as? String,
            subError: serverError.userInfo[MSALOAuthSubErrorKey] as? String,
            correlationId: correlation,
            underlyingError: serverError
        )
        return make(.interactionRequired, userInteractionRequiredMessage, details)
    }
}
