import Foundation

extension SilentFlow {
    /// One refresh: what the silent flow knows once it decided to refresh, passed as one value
    /// through the single flight and the refresh lock to the token request.
    struct RefreshAttempt {
        /// The request, as the app made it.
        var request: Request
        /// The account's home account id (its identifier).
        var homeAccountId: String
        var account: MSALAccount
        /// The authority, resolved: the token endpoint and the cache environments.
        var resolved: ResolvedAuthority
        /// The realm tokens are cached under.
        var realm: String
        /// The scopes asked for.
        var scopes: OrderedScopes
        /// The claims to send (the request's, merged with the client capabilities).
        var claims: String?
        /// The cached token a failed refresh may still return.
        var cached: CachedFallback?

        var correlationId: UUID { request.correlationId }

        /// Where the cache holds this request's tokens.
        var lookupScope: CacheLookupScope { resolved.lookupScope(realm: realm) }

        /// The key of the single flight and the refresh lock: requests that would send the same
        /// token request share one.
        var key: String {
            [
                homeAccountId, resolved.networkAuthority.urlString, realm, scopes.scopeString.lowercased(),
                claims ?? "", request.forceRefresh ? "force" : "", request.resource ?? "",
            ].joined(separator: "\u{1F}")
        }

        /// Whether a good token another caller cached meanwhile may be returned instead of sending
        /// a request: not when the request forces a refresh or asks for claims (with a resource
        /// indicator, only a token of that resource is looked for).
        var mayReturnFreshToken: Bool {
            !request.forceRefresh && request.claims == nil
        }
    }
}
