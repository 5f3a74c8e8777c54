/// An account record of the unified cache schema: one per home account, environment and realm
/// (tenant), so a multi-tenant account has one record per tenant profile.
struct CacheAccount: Sendable, Equatable {
    /// The home account id. Setting another value forgets the entry's place (see ``source``).
    var homeAccountId: String { didSet { if homeAccountId != oldValue { source.place = nil } } }
    var environment: String { didSet { source.place = nil } }
    /// The tenant id of this profile; the home profile has realm == utid.
    var realm: String { didSet { source.place = nil } }
    /// The object id in this tenant (`oid`), or `sub` without one.
    var localAccountId: String { didSet { source.place = nil } }
    var username: String { didSet { source.place = nil } }
    /// `MSSTS` (AAD v2, B2C, CIAM), `AAD`, `MSA`, `ADFS` or `Other`.
    var authorityType: String { didSet { source.place = nil } }
    /// The raw base64url `client_info`, when known.
    var clientInfo: String? { didSet { source.place = nil } }
    var name: String? { didSet { source.place = nil } }
    var givenName: String? { didSet { source.place = nil } }
    var familyName: String? { didSet { source.place = nil } }
    var middleName: String? { didSet { source.place = nil } }
    var unknown: UnknownFields = .none { didSet { source.place = nil } }
    var originalKey: String? { didSet { source.place = nil } }
    /// Where the entry is in the cache file while the entity is unchanged; see ``CacheEntrySource``.
    var source = CacheEntrySource()
}
