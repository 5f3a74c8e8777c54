import Foundation

/// How to get a token for a protected resource: which authority, which scopes, and whether to send
/// the RFC 8707 `resource` parameter.
struct ResourceAccessPlan: Sendable, Equatable {
    /// The authority to sign in with.
    var authority: Authority
    /// The scopes to request.
    var scopes: [String]
    /// The RFC 8707 `resource` to send on the authorize and token requests, or `nil` (Microsoft
    /// Entra ID rejects it on its v2.0 endpoints: the resource is named by the scope instead).
    var resourceParameter: String?
    /// Whether the authorization server is Microsoft Entra ID.
    var isEntra: Bool
}

/// Chooses the authorization server of a resource's Protected Resource Metadata (RFC 9728) and
/// turns it into a ``ResourceAccessPlan``. Pure: values in, a value or a problem out.
///
/// - The document's `resource` must be the resource identifier the client used (RFC 9728 §3.3),
///   or the plan is refused: a document copied from another resource would send the user's
///   token to an impersonator.
/// - Authorization servers must be `https` (or `http` on a loopback origin the app listed in
///   `knownAuthorities`); others are skipped. Of the rest, one on the host of the app's configured
///   authority is preferred, else the first.
/// - A Microsoft Entra server (a Microsoft login host, `sts.windows.net`, or the configured Entra
///   authority's own host, as an emulator's) becomes an Entra authority for the tenant its issuer
///   names, with the scope `<resource>/.default` and no `resource` parameter. Any other server
///   is an OpenID Connect authority for its issuer, with the challenge's scopes (else the
///   document's `scopes_supported`) and `resource` set to the resource identifier (RFC 8707).
enum ResourceAccessDecision {
    /// The plan for `metadata`, read for the resource identifier `resource`.
    ///
    /// - Parameters:
    ///   - challengeScopes: the `scope` of the resource's challenge, if any.
    ///   - configured: the app's configured authority.
    ///   - plainHTTPOrigins: the plain-HTTP loopback origins the app allows.
    static func plan(
        metadata: ProtectedResourceMetadata, resource: URL, challengeScopes: [String], configured: Authority,
        plainHTTPOrigins: Set<HTTPOrigin> = []
    ) throws(ProtectedResourceMetadata.Problem) -> ResourceAccessPlan {
        guard ProtectedResourceMetadata.sameResource(metadata.resource, resource) else { throw .resourceMismatch }
        let candidates = metadata.authorizationServers.compactMap { server -> Authority? in
            guard let url = URL(string: server),
                ProtectedResourceMetadata.isAcceptedWebURL(url, plainHTTPOrigins: plainHTTPOrigins),
                URLComponents(url: url, resolvingAgainstBaseURL: false)?.query == nil
            else { return nil }
            return try? Authority.oidc(issuer: server)
        }
        guard
            let server = candidates.first(where: { $0.environment == configured.environment }) ?? candidates.first
        else { throw .noAuthorizationServer }
        if let entra = entraAuthority(for: server, configured: configured) {
            return ResourceAccessPlan(
                authority: entra, scopes: [defaultScope(forResource: metadata.resource)], resourceParameter: nil,
                isEntra: true)
        }
        let scopes = challengeScopes.isEmpty ? metadata.scopesSupported : challengeScopes
        return ResourceAccessPlan(
            authority: server, scopes: scopes, resourceParameter: metadata.resource, isEntra: false)
    }

    /// `<resource>/.default`, the Microsoft Entra scope for every permission the app has on a
    /// resource, from the resource identifier as written: a trailing `/` stays, so
    /// `https://management.core.windows.net/` gives `https://management.core.windows.net//.default`,
    /// as Entra expects for an application id URI that ends with `/`.
    static func defaultScope(forResource resource: String) -> String {
        resource + "/.default"
    }

    /// The Entra authority for an issuer on an Entra host: `https://<host>/<tenant>` from
    /// `https://<host>/<tenant>/v2.0` (and `https://sts.windows.net/<tenant>/` becomes
    /// `https://login.microsoftonline.com/<tenant>`); a tenantless issuer gives `organizations`.
    /// `nil` when the issuer is not on an Entra host.
    static func entraAuthority(for issuer: Authority, configured: Authority) -> Authority? {
        let configuredEntraHost = configured.aadTenantType != nil && issuer.environment == configured.environment
        let stsHost = issuer.host == "sts.windows.net"
        guard TrustedAuthorityHosts.contains(issuer.host) || stsHost || configuredEntraHost else { return nil }
        let tenant = issuer.parts.segments.first ?? "organizations"
        let origin: String
        if stsHost {
            origin = "https://\(TrustedAuthorityHosts.defaultDiscoveryHost)"
        } else {
            origin = issuer.parts.origin
        }
        return try? Authority.aad(origin + "/" + tenant)
    }
}
