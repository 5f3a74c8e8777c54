import Foundation

extension Authority {
    /// Picks the kind of authority a URL is, as `MSALAuthority.authority(with:)` does:
    ///
    /// 1. first segment `tfp` → B2C (validated `/tfp/<tenant>/<policy>` form);
    /// 2. first segment `adfs` → AD FS;
    /// 3. a `*.ciamlogin.*` host → CIAM;
    /// 4. a `*.b2clogin.*` host → B2C in its non-tfp form (MSAL would make it AAD);
    /// 5. a path with a tenant, or a trusted Microsoft host → AAD (custom AAD hosts and emulators
    ///    included, as in MSAL);
    /// 6. anything else, i.e. a host that is not a Microsoft login host with no path, → an OIDC
    ///    issuer (MSAL refuses it: "Non Microsoft authority is not supported yet").
    ///
    /// An OIDC issuer whose URL has a path (`https://idp.example.com/realms/demo`) is read as AAD
    /// here; create it with ``oidc(issuer:correlationId:)`` instead.
    static func detect(_ string: String, correlationId: UUID? = nil) throws -> Authority {
        let parts = try AuthorityURLParts.parse(string, correlationId: correlationId)
        switch parts.firstSegmentLowercased {
        case "tfp": return try b2c(parts, validateFormat: true, correlationId: correlationId)
        case "adfs": return try adfs(parts, correlationId: correlationId)
        default: break
        }
        if isCIAMHost(parts) {
            return try ciam(parts, validateFormat: true, correlationId: correlationId)
        }
        if isB2CLoginHost(parts) {
            return try b2c(parts, validateFormat: false, correlationId: correlationId)
        }
        if !parts.segments.isEmpty || TrustedAuthorityHosts.contains(parts.host) {
            return try aad(parts, correlationId: correlationId)
        }
        return oidc(parts)
    }
}
