import Foundation

/// The outcome of a token response that granted fewer scopes than requested
/// (reference §4, `MSIDDefaultTokenResponseValidator.m`).
struct DeclinedScopes: Sendable, Hashable {
    /// The scopes the server granted, without the OIDC scopes, in the server's order and case.
    let granted: [String]
    /// The requested scopes that were not granted, in request order and case.
    let declined: [String]

    /// The message of the -50003 error.
    static let message =
        "Server returned less scopes than requested. Read MSALDeclinedScopesKey and MSALGrantedScopesKey: "
        + "retry with the granted scopes, or have the user (or an administrator) consent to the declined ones."

    /// Compares a token response with its request.
    ///
    /// - Parameters:
    ///   - requested: the request scopes (without extraScopesToConsent).
    ///   - grantedScope: the response's `scope`; `nil` (absent) means the requested scopes.
    ///   - accessTokenReturned: only a response with an access token is checked.
    /// - Returns: `nil` when nothing was declined: no access token, no `scope` in the response,
    ///   a request with a `/.default` scope (ours: such a request gets what the app registration
    ///   lists, which is never a decline), or every requested scope other than the OIDC ones
    ///   granted, compared in lowercase, `email` counting as granted when the server did not echo it.
    static func check(requested: [String], grantedScope: String?, accessTokenReturned: Bool) -> DeclinedScopes? {
        guard accessTokenReturned, let grantedScope else { return nil }
        if requested.contains(where: ScopeRules.isDefaultScope) { return nil }
        let oidc = Set(ScopeRules.oidcScopes)
        let serverScopes = OrderedScopes(
            grantedScope.split(separator: " ").map { ASCII.trimmed($0) }
                .filter { !$0.isEmpty })
        var grantedLowercased = Set(serverScopes.map { $0.lowercased() })
        grantedLowercased.insert("email")
        let missing = OrderedScopes(requested).filter { scope in
            let lowered = scope.lowercased()
            return !oidc.contains(lowered) && !grantedLowercased.contains(lowered)
        }
        guard !missing.isEmpty else { return nil }
        return DeclinedScopes(
            granted: serverScopes.filter { !oidc.contains($0.lowercased()) },
            declined: missing
        )
    }

    /// The -50003 error (`MSALErrorServerDeclinedScopes`) with ``MSALGrantedScopesKey``,
    /// ``MSALDeclinedScopesKey`` and, when given, the result under ``MSALInvalidResultKey``.
    func error(invalidResult: Any? = nil, correlationId: UUID? = nil) -> NSError {
        MSALErrors.make(
            .serverDeclinedScopes,
            Self.message,
            ErrorDetails(
                correlationId: correlationId, grantedScopes: granted, declinedScopes: declined,
                invalidResult: invalidResult)
        )
    }
}
