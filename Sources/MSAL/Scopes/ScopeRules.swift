import Foundation

/// MSAL's rules for the scopes of a request (reference §4), and ours for `/.default`.
enum ScopeRules {
    /// The OpenID Connect scopes always sent, in this order.
    static let oidcScopes = ["openid", "profile", "offline_access"]

    /// The suffix of a resource's `/.default` scope.
    static let defaultScopeSuffix = "/.default"

    /// How MSAL prints the reserved set in its message (an `NSOrderedSet` description).
    static let reservedScopesDescription = "{(openid, profile, \"offline_access\")}"

    /// The message when a request names a reserved scope.
    static let reservedScopesMessage =
        "\(reservedScopesDescription) are reserved scopes and may not be specified in the acquire token call."

    /// The request scopes, checked: exact duplicates removed (order kept), then rejected when they
    /// contain `openid`, `profile` or `offline_access` (exact, case-sensitive), or the client id
    /// when the authority does not allow it (all but B2C). An empty list is accepted, as in MSAL.
    ///
    /// - Throws: -50000 with internal -42000 and MSAL's message.
    static func requestScopes(
        _ scopes: [String], clientId: String, authority: Authority, correlationId: UUID? = nil
    ) throws -> OrderedScopes {
        let ordered = OrderedScopes(scopes)
        if ordered.contains(where: oidcScopes.contains) {
            throw MSALErrors.make(
                .internalErrorInvalidParameter, reservedScopesMessage, ErrorDetails(correlationId: correlationId))
        }
        if !authority.supportsClientIDAsScope && ordered.contains(clientId) {
            throw MSALErrors.make(
                .internalErrorInvalidParameter,
                "Passing clientId \(clientId) as scope is not supported by \(authority.urlString). "
                    + "Please remove \(clientId) from your scopes list",
                ErrorDetails(correlationId: correlationId)
            )
        }
        return ordered
    }

    /// The `scope` of a /token request: the request scopes, then `openid profile offline_access`.
    /// Never contains extraScopesToConsent.
    static func tokenRequestScopes(_ requested: OrderedScopes) -> OrderedScopes {
        requested.union(oidcScopes)
    }

    /// The `scope` of an /authorize request: the /token scopes, then `extraScopesToConsent`.
    static func authorizeRequestScopes(_ requested: OrderedScopes, extraScopesToConsent: [String]) -> OrderedScopes {
        tokenRequestScopes(requested).union(extraScopesToConsent)
    }

    /// Whether `scope` is a resource's `/.default` scope (`https://graph.microsoft.com/.default`),
    /// compared without regard to case.
    static func isDefaultScope(_ scope: String) -> Bool {
        scope.lowercased().hasSuffix(defaultScopeSuffix)
    }
}
