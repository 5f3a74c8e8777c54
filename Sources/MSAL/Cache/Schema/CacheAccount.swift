/// An account record of the unified cache schema: one per home account, environment and realm
/// (tenant), so a multi-tenant account has one record per tenant profile.
package struct CacheAccount: Sendable, Equatable {
    /// The home account id.
    var homeAccountId = ""
    var environment = ""
    /// The tenant id of this profile; the home profile has realm == utid.
    var realm = ""
    /// The object id in this tenant (`oid`), or `sub` without one.
    var localAccountId = ""
    var username = ""
    /// `MSSTS` (AAD v2, B2C, CIAM), `AAD`, `MSA`, `ADFS` or `Other`.
    var authorityType = "MSSTS"
    /// The raw base64url `client_info`, when known.
    var clientInfo: String? = nil
    var name: String? = nil
    var givenName: String? = nil
    var familyName: String? = nil
    var middleName: String? = nil
    /// How the account was established (`account_source`: `broker`, ...), as MSAL for Python.
    var accountSource: String? = nil
    var unknown: UnknownFields = .none
    var originalKey: String? = nil
}
