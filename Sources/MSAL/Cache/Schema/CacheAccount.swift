/// An account record of the unified cache schema: one per home account, environment and realm
/// (tenant), so a multi-tenant account has one record per tenant profile.
struct CacheAccount: Sendable, Equatable {
    /// The home account id.
    var homeAccountId: String
    var environment: String
    /// The tenant id of this profile; the home profile has realm == utid.
    var realm: String
    /// The object id in this tenant (`oid`), or `sub` without one.
    var localAccountId: String
    var username: String
    /// `MSSTS` (AAD v2, B2C, CIAM), `AAD`, `MSA`, `ADFS` or `Other`.
    var authorityType: String
    /// The raw base64url `client_info`, when known.
    var clientInfo: String?
    var name: String?
    var givenName: String?
    var familyName: String?
    var middleName: String?
    var unknown: UnknownFields = .none
    var originalKey: String?
}
