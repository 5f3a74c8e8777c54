import Foundation

/// A parsed, normalized authority: what later layers (discovery, flows, cache) work with.
///
/// Create one with ``aad(_:rawTenant:correlationId:)``, ``b2c(_:validateFormat:correlationId:)``,
/// ``ciam(_:validateFormat:correlationId:)``, ``adfs(_:correlationId:)``,
/// ``oidc(issuer:correlationId:)`` or ``detect(_:correlationId:)``. Parsing is pure; each rejection
/// is an `NSError` in `MSALErrorDomain` (-50000 with internal code -42000) carrying MSAL's message.
///
/// Two authorities are equal when they are of the same kind and have the same normalized URL:
/// the rule for matching `knownAuthorities`.
struct Authority: Sendable, Hashable, CustomStringConvertible {
    /// The kind, with tenant type (AAD) or tenant and policy (B2C).
    let kind: AuthorityKind
    /// The URL pieces the authority was built from (normalized).
    let parts: AuthorityURLParts
    /// The normalized URL as a string (no trailing slash, query or fragment; host lowercased).
    let urlString: String
    /// The tenant as MSAL names it: the lowercased tenant segment for AAD, the tenant segment of
    /// a `/tfp/` B2C URL (else its whole path), the tenant segment for CIAM, `adfs` for AD FS, the
    /// first path segment (or "") for an OIDC issuer.
    let realm: String

    init(kind: AuthorityKind, parts: AuthorityURLParts, urlString: String, realm: String) {
        self.kind = kind
        self.parts = parts
        self.urlString = urlString
        self.realm = realm
    }

    /// The normalized URL.
    var url: URL {
        // urlString is built from URLComponents' own percent-encoded pieces, so it always parses.
        URL(string: urlString) ?? URL(fileURLWithPath: "/")
    }

    /// Lowercased host, plus `:port` when a non-default port is present (`login.microsoftonline.com`,
    /// `127.0.0.1:8443`).
    var environment: String { parts.hostWithPort }

    /// The lowercased host without port.
    var host: String { parts.host }

    /// The AAD tenant type, or `nil` for other kinds.
    var aadTenantType: AADTenantType? {
        if case .aad(let type) = kind { return type }
        return nil
    }

    /// For B2C, the policy (user flow) named in the path, such as `B2C_1_signin`.
    var b2cPolicy: String? {
        if case .b2c(_, let policy, _) = kind { return policy }
        return nil
    }

    /// Whether the host is one of the Microsoft login hosts MSAL trusts without discovery.
    var isTrustedMicrosoftHost: Bool {
        TrustedAuthorityHosts.contains(parts.host)
    }

    /// Only AAD authorities go through instance discovery (`/common/discovery/instance`).
    var needsInstanceDiscovery: Bool {
        if case .aad = kind { return true }
        return false
    }

    /// Whether the client id may be passed as a scope: only B2C allows it.
    var supportsClientIDAsScope: Bool {
        if case .b2c = kind { return true }
        return false
    }

    /// Whether the authority sends `client_info=1` and builds home account ids from client_info
    /// (AAD, B2C, CIAM); AD FS and OIDC issuers use the id_token's `sub` instead.
    var supportsClientInfo: Bool {
        switch kind {
        case .aad, .b2c, .ciam: true
        case .adfs, .oidc: false
        }
    }

    /// `http` on 127.0.0.1, ::1 or localhost: usable only when listed in knownAuthorities.
    var isLoopbackHTTP: Bool {
        parts.scheme == "http"
    }

    var description: String { urlString }

    static func == (lhs: Authority, rhs: Authority) -> Bool {
        lhs.kind.name == rhs.kind.name && lhs.urlString == rhs.urlString
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(kind.name)
        hasher.combine(urlString)
    }
}
