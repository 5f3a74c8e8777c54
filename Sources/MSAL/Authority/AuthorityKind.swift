/// The kind of an ``Authority``, with what its URL says about tenant and policy.
enum AuthorityKind: Sendable, Hashable {
    /// Microsoft Entra ID (Azure AD), any cloud.
    case aad(AADTenantType)
    /// Azure AD B2C: `tenant` and `policy` as found in the path (`nil` when the path has no such
    /// segment); `isTFP` for the validated `/tfp/<tenant>/<policy>` form.
    case b2c(tenant: String?, policy: String?, isTFP: Bool)
    /// Microsoft Entra External ID for customers (`<tenant>.ciamlogin.com` or a custom domain).
    case ciam
    /// AD FS (`https://<host>/adfs`).
    case adfs
    /// Any OpenID Connect issuer; the authority URL is the issuer.
    case oidc

    /// The kind without its details, for messages, logging and equality of authorities.
    var name: String {
        switch self {
        case .aad: "AAD"
        case .b2c: "B2C"
        case .ciam: "CIAM"
        case .adfs: "ADFS"
        case .oidc: "OIDC"
        }
    }
}

extension AuthorityKind {
    /// The kind without its tenant or policy: an application serves one family of authorities
    /// (AAD tenants and clouds, or B2C policies, or ...), as MSAL requires.
    var family: String { name }
}
