import Foundation

extension Authority {
    /// Where tenant discovery reads the OpenID configuration: AAD, B2C and CIAM
    /// `<authority>/v2.0/.well-known/openid-configuration`; AD FS and OIDC issuers
    /// `<authority>/.well-known/openid-configuration`.
    var openIDConfigurationURL: URL {
        switch kind {
        case .aad, .b2c, .ciam: appending("/v2.0/.well-known/openid-configuration")
        case .adfs, .oidc: appending("/.well-known/openid-configuration")
        }
    }

    /// The authorize endpoint to use when the OpenID configuration cannot be read (AAD, B2C and
    /// CIAM `<authority>/oauth2/v2.0/authorize`, AD FS `<authority>/oauth2/authorize`); `nil` for
    /// an OIDC issuer, whose endpoints come only from its configuration.
    var defaultAuthorizationEndpoint: URL? {
        switch kind {
        case .aad, .b2c, .ciam: appending("/oauth2/v2.0/authorize")
        case .adfs: appending("/oauth2/authorize")
        case .oidc: nil
        }
    }

    /// The token endpoint counterpart of ``defaultAuthorizationEndpoint``.
    var defaultTokenEndpoint: URL? {
        switch kind {
        case .aad, .b2c, .ciam: appending("/oauth2/v2.0/token")
        case .adfs: appending("/oauth2/token")
        case .oidc: nil
        }
    }

    /// The instance discovery request for an AAD authority (`nil` for other kinds):
    /// `GET https://<host>/common/discovery/instance?api-version=1.1&authorization_endpoint=<authority>/oauth2/v2.0/authorize`,
    /// sent to the authority's own environment when it is known (a trusted Microsoft host, or
    /// listed in knownAuthorities), else to `login.microsoftonline.com`.
    func instanceDiscoveryURL(isDeveloperKnown: Bool) -> URL? {
        guard case .aad = kind else { return nil }
        let known = isTrustedMicrosoftHost || isDeveloperKnown
        let origin = known ? parts.origin : "https://\(TrustedAuthorityHosts.defaultDiscoveryHost)"
        let endpoint = urlString + "/oauth2/v2.0/authorize"
        let encoded = ASCII.percentEncodedExceptUnreserved(endpoint) ?? Self.percentEncodedExceptAlphanumerics(endpoint)
        return URL(
            string: origin + "/common/discovery/instance?api-version=1.1&authorization_endpoint=" + encoded)
    }

    /// `text` with everything but the alphanumerics and `-._~` percent-encoded.
    private static func percentEncodedExceptAlphanumerics(_ text: String) -> String {
        var unreserved = CharacterSet.alphanumerics
        unreserved.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// The first path segment of an endpoint URL, percent-decoded: the tenant that replaces
    /// `{tenantid}` in an issuer, and what MSAL Python takes as the tenant of a token endpoint.
    static func tenant(ofEndpoint url: URL) -> String? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        guard let first = components.percentEncodedPath.split(separator: "/").first else { return nil }
        return String(first).removingPercentEncoding ?? String(first)
    }

    private func appending(_ path: String) -> URL {
        URL(string: urlString + path) ?? url
    }
}
