import Foundation

extension SilentFlow {
    /// A refresh that failed, typed until ``error`` makes the app's error of it: the fallback
    /// rules and the family-token retry decide on its values.
    enum RefreshFailure: Error {
        /// The cache holds no refresh token for the account: interaction is required.
        case noRefreshToken(correlationId: UUID)
        /// The token request failed, or the throttling cache answered for it
        /// (``TokenRequestFailure/isThrottled``).
        case request(TokenRequestFailure)

        /// The HTTP status of a request that was sent; `nil` when nothing was sent (no refresh
        /// token, a throttled request) or nothing came back.
        var statusCode: Int? {
            guard case .request(let failure) = self, !failure.isThrottled else { return nil }
            return failure.statusCode
        }

        /// Whether a request was sent and the server could not be reached.
        var isNetworkFailure: Bool {
            guard case .request(let failure) = self, !failure.isThrottled else { return false }
            return failure.isNetworkFailure
        }

        /// The error the app receives (``MSALErrors/silentFlowError(for:)`` for a request).
        var error: NSError {
            switch self {
            case .noRefreshToken(let correlationId):
                MSALErrors.make(
                    .interactionRequired,
                    "No token matching arguments found in the cache, user interaction is required",
                    ErrorDetails(correlationId: correlationId))
            case .request(let failure):
                MSALErrors.silentFlowError(for: failure)
            }
        }
    }
}
