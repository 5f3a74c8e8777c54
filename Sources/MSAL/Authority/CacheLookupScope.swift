import Foundation

/// Where the tokens of an authority are looked up in the cache, and what a result built from a
/// cache hit names: the environments (aliases of the cloud, in MSAL's order), the realm, and the
/// environment new entries are written under. Made from a resolved authority, or, before any
/// request, from what sign-in recorded (``AuthorityResolver/offlineLookupScope(_:knownAuthorities:homeTenant:)``),
/// so that a cached token needs no network.
struct CacheLookupScope: Sendable {
    /// The environments to look tokens up under, in MSAL's order.
    let environments: [String]
    /// The environment tokens are written under (`preferred_cache`).
    let cacheEnvironment: String
    /// The realm (tenant) tokens are cached under.
    let realm: String
    /// A second realm to look in: B2C tokens written by MSAL Python are under the tenant named in
    /// the authority's path, ours under the tenant id.
    let alternateRealm: String?
    /// The public authority of results.
    let publicAuthority: MSALAuthority

    /// The scope of `authority` with what discovery gave (or, offline, what sign-in recorded).
    init(authority: Authority, environments: [String], cacheEnvironment: String, realm: String) {
        self.environments = environments
        self.cacheEnvironment = cacheEnvironment
        self.realm = realm
        if case .b2c(let tenant?, _, _) = authority.kind, tenant.lowercased() != realm {
            alternateRealm = tenant.lowercased()
        } else {
            alternateRealm = nil
        }
        publicAuthority = MSALAuthority.wrap(authority)
    }

    /// The realm tokens of `authority` are cached under, when it can be told without discovery:
    /// a tenant id for Entra ID and CIAM (a domain-named tenant needs the issuer, so `nil`), the
    /// home tenant for B2C, the authority's realm for AD FS and OpenID Connect.
    static func offlineRealm(_ authority: Authority, homeTenant: String?) -> String? {
        switch authority.kind {
        case .aad, .ciam:
            return UUID(uuidString: authority.realm) != nil ? authority.realm.lowercased() : nil
        case .b2c:
            return homeTenant ?? authority.realm
        case .adfs, .oidc:
            return authority.realm
        }
    }
}

extension ResolvedAuthority {
    /// The lookup scope of this authority for `realm`.
    func lookupScope(realm: String) -> CacheLookupScope {
        CacheLookupScope(
            authority: authority, environments: cacheLookupEnvironments, cacheEnvironment: cacheEnvironment,
            realm: realm)
    }
}
