import Foundation

/// What a silent request for a resource's challenge asks for.
struct ChallengeTokenPlan: Sendable, Equatable {
    /// The scopes to request.
    var scopes: [String]
    /// The claims JSON to send, or `nil` to send the request's own claims (if any).
    var claims: String?
    /// The authority to use instead of the request's, or `nil` to keep it.
    var authority: Authority?
    /// Whether to skip the cached access token: the resource refused the token it had.
    var skipCachedToken: Bool
}

/// Turns a challenge (``MSALWWWAuthenticateParameters``) and the app's request into a silent
/// request. Pure.
///
/// - Scopes: the request's, else the challenge's `scope`; none at all is a problem.
/// - Claims: the challenge's, which replace the request's (the resource says what it needs now).
/// - Authority: the request's when it names one. Else the challenge's `authorization_uri` when it
///   is a Microsoft Entra authority on the same host as the app's configured Entra authority (a
///   tenant the resource lives in); a challenge naming another host is ignored, so a resource
///   cannot send the account's refresh token to a server of its choosing.
/// - The cached access token is skipped for a claims challenge and for `invalid_token`: the
///   resource refused the token the cache holds. `insufficient_scope` with new scopes may be
///   answered from the cache.
enum ChallengeTokenDecision {
    /// Why no request can be made.
    enum Problem: Error, Equatable {
        /// Neither the request nor the challenge names a scope.
        case noScopes
    }

    static func plan(
        claims: String?, challengeScopes: [String], challengeAuthority: URL?, error: String?,
        requestedScopes: [String], requestedAuthority: Authority?, configured: Authority
    ) -> Result<ChallengeTokenPlan, Problem> {
        let scopes = requestedScopes.isEmpty ? challengeScopes : requestedScopes
        guard !scopes.isEmpty else { return .failure(.noScopes) }
        var authority: Authority?
        if requestedAuthority == nil, configured.aadTenantType != nil, let challengeAuthority,
            let named = try? Authority.aad(challengeAuthority.absoluteString),
            named.environment == configured.environment, named.realm != configured.realm
        {
            authority = named
        }
        let refused = ["invalid_token", "insufficient_claims"].contains(error?.lowercased() ?? "")
        return .success(
            ChallengeTokenPlan(
                scopes: scopes, claims: claims, authority: authority, skipCachedToken: claims != nil || refused))
    }
}
