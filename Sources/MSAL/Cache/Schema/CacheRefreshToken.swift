/// A refresh token of the unified cache schema (`credential_type` `RefreshToken`).
///
/// As MSAL Python stores it: one per account, environment and client, carrying `family_id` when
/// the client belongs to a family (FOCI). Family lookups find it by `family_id`.
struct CacheRefreshToken: Sendable, Equatable {
    /// The home account id.
    var homeAccountId = ""
    var environment = ""
    var clientId = ""
    /// The token; empty while the store keeps it as a place in the cache file
    /// (``TokenStore`` resolves it: read tokens through the store's queries).
    var secret = ""
    /// The scopes it was granted with, joined by spaces (optional in the schema).
    var target: String? = nil
    /// `"1"` for the Microsoft family; `nil` when not a family token.
    var familyId: String? = nil
    /// `last_modification_time` as written (integer or fractional epoch seconds).
    var lastModificationTime: String? = nil
    /// A realm, rarely present (refresh tokens are cross-tenant).
    var realm: String? = nil
    /// `expires_on`: when the token stops being redeemable, in epoch seconds, when the server
    /// said (`refresh_token_expires_in`, as MSAL for JavaScript stores it); `nil` otherwise.
    var expiresOn: Int64? = nil
    var unknown: UnknownFields = .none
    var originalKey: String? = nil

    /// Whether this token is a family refresh token.
    var isFamilyToken: Bool { !(familyId ?? "").isEmpty }

    /// `last_modification_time` as seconds, for choosing the newest of several tokens.
    var modificationSeconds: Double { lastModificationTime.flatMap(Double.init) ?? 0 }
}
