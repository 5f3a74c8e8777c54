import Foundation

extension SilentFlow {
    /// What a cached access token that can be returned as it is gives the result, read in the
    /// same cache read as the token.
    struct CacheHit {
        var secret: String
        var target: String
        var expiresOn: Int64?
        var account: MSALAccount?
        var idToken: String?
    }

    /// What one cache read found for the request.
    enum CacheLookup {
        /// A token that can be returned as it is (valid, not due for refresh, the request does
        /// not skip the cache): only what the result needs.
        case hit(CacheHit)
        /// A token the request does not return as it is (due for refresh, expired, or the request
        /// skips the cache), with its status: the refresh may fall back to it.
        case needsRefresh(CacheAccessToken, AccessTokenStatus)
        /// No token.
        case miss

        /// The status ``SilentTokenDecision/decide(status:skipCache:extendedLifetimeEnabled:)``
        /// reads: `nil` on a miss.
        var status: AccessTokenStatus? {
            switch self {
            case .hit: .valid(refreshNeeded: false)
            case .needsRefresh(_, let status): status
            case .miss: nil
            }
        }

        /// The cached token a refresh decided on may fall back to, and under which rule: the one
        /// this lookup found due for refresh (for a resource indicator, a token of that resource:
        /// the lookup looks nowhere else).
        func fallback(for decision: SilentTokenDecision) -> CachedFallback? {
            guard case .refresh(let fallback) = decision, case .needsRefresh(let token, _) = self else { return nil }
            return CachedFallback(token: token, fallback: fallback)
        }
    }

    /// A cached token a failed refresh may still return, and the rule that says when.
    struct CachedFallback {
        var token: CacheAccessToken
        var fallback: SilentTokenDecision.Fallback
    }
}
