import Foundation

/// The decisions of `acquireTokenSilent` around a cached access token, as a pure function of
/// the token's times and the request (reference §5, steps 1 and 4). No I/O: the silent flow
/// looks up the cache, asks here, and does what the answer says.
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
        /// lifetime is enabled and the failure is a server error.
        case extendedLifetime
    }

    /// The times of a cached access token.
    struct CachedTimes: Equatable {
        var expiresOn: Date
        var extendedExpiresOn: Date?
        var refreshOn: Date?
        var cachedAt: Date?
    }

    /// Decides for `cached` (nil when no access token matched).
    ///
    /// - Parameters:
    ///   - skipCache: `forceRefresh` or a claims request: never return the cached token.
    ///   - buffer: `tokenExpirationBuffer`; a token expiring within it counts as expired.
    static func decide(
        cached: CachedTimes?, now: Date, buffer: TimeInterval, skipCache: Bool, extendedLifetimeEnabled: Bool
    ) -> SilentTokenDecision {
        guard let cached, !skipCache else { return .refresh(fallback: .none) }
        let cachedInFuture = cached.cachedAt.map { $0 > now } ?? false
        let expired = cached.expiresOn < now.addingTimeInterval(buffer) || cachedInFuture
        if !expired {
            let refreshDue = (cached.refreshOn.map { $0 < now } ?? false) || cachedInFuture
            return refreshDue ? .refresh(fallback: .stillValid) : .returnCached
        }
        if extendedLifetimeEnabled, let extended = cached.extendedExpiresOn, extended > now {
            return .refresh(fallback: .extendedLifetime)
        }
        return .refresh(fallback: .none)
    }

    /// Whether a failed refresh may fall back to the cached token: only for a server error
    /// (HTTP 5xx after the transport's retry), or, for a still-valid token, also when the
    /// service could not be reached.
    static func mayFallBack(_ fallback: Fallback, statusCode: Int?, isNetworkFailure: Bool) -> Bool {
        let serverUnavailable = statusCode.map { (500...599).contains($0) } ?? false
        switch fallback {
        case .none: return false
        case .stillValid: return serverUnavailable || isNetworkFailure
        case .extendedLifetime: return serverUnavailable
        }
    }
}
