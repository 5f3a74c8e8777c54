import Foundation

/// The decisions of `acquireTokenSilent` around a cached access token (reference §5, steps 1
/// and 4), as a pure function of its ``AccessTokenStatus`` and the request. No I/O: the silent
/// flow looks the token up, asks here, and does what the answer says.
enum SilentTokenDecision: Equatable {
    /// Return the cached token; no network.
    case returnCached
    /// Redeem the refresh token; on failure, `fallback` says which cached token may still be
    /// returned.
    case refresh(fallback: Fallback)

    /// What to return when the refresh fails because the service is unavailable.
    enum Fallback: Equatable {
        /// Nothing: the error is returned.
        case none
        /// The cached token, still valid but due for proactive refresh (`refresh_on` passed).
        case stillValid
        /// The cached token past its expiry but within `extended_expires_on`, only when extended
        /// lifetime is enabled.
        case extendedLifetime
    }

    /// Decides for a cached token's `status` (nil when no access token matched).
    ///
    /// - Parameter skipCache: `forceRefresh` or a claims request: never return the cached token.
    static func decide(status: AccessTokenStatus?, skipCache: Bool, extendedLifetimeEnabled: Bool)
        -> SilentTokenDecision
    {
        guard let status, !skipCache else { return .refresh(fallback: .none) }
        switch status {
        case .valid(refreshNeeded: false): return .returnCached
        case .valid(refreshNeeded: true): return .refresh(fallback: .stillValid)
        case .extendedLifetime: return .refresh(fallback: extendedLifetimeEnabled ? .extendedLifetime : .none)
        case .expired: return .refresh(fallback: .none)
        }
    }

    /// Whether a failed refresh may fall back to the cached token: for a still-valid token when
    /// the server answered 5xx (after the transport's retry) or could not be reached; for an
    /// extended-lifetime token only on 5xx.
    static func mayFallBack(_ fallback: Fallback, statusCode: Int?, isNetworkFailure: Bool) -> Bool {
        let serverUnavailable = statusCode.map { (500...599).contains($0) } ?? false
        switch fallback {
        case .none: return false
        case .stillValid: return serverUnavailable || isNetworkFailure
        case .extendedLifetime: return serverUnavailable
        }
    }

    /// ``mayFallBack(_:statusCode:isNetworkFailure:)`` for a refresh that failed: a throttled
    /// request, or none for want of a refresh token, reached no server.
    static func mayFallBack(_ fallback: Fallback, after failure: SilentFlow.RefreshFailure) -> Bool {
        mayFallBack(fallback, statusCode: failure.statusCode, isNetworkFailure: failure.isNetworkFailure)
    }

    /// Whether a redemption of the app's own refresh token that failed may be tried again with
    /// the family's (a different token): the server refused it for a reason the user could fix
    /// (``TokenRequestFailure/isRecoverableByInteraction``), also when the throttling cache
    /// answered with that refusal.
    static func mayTryFamilyToken(after failure: SilentFlow.RefreshFailure) -> Bool {
        guard case .request(let failure) = failure else { return false }
        return failure.isRecoverableByInteraction
    }
}
