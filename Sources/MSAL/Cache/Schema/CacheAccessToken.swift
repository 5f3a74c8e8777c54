/// An access token of the unified cache schema (`credential_type` `AccessToken`).
package struct CacheAccessToken: Sendable, Equatable {
    /// The home account id.
    var homeAccountId = ""
    /// The cache (storage) environment: a host, without the port when it is 443.
    var environment = ""
    package var clientId = ""
    /// The tenant id.
    package var realm = ""
    /// The granted scopes joined by spaces, in the server's case.
    var target = ""
    /// The token; empty while the store keeps it as a place in the cache file
    /// (``TokenStore`` resolves it: read tokens through the store's queries).
    var secret = ""
    /// `token_type`; `nil` when the entry has none (Bearer).
    var tokenType: String? = nil
    /// Epoch seconds (written as strings).
    var cachedAt: Int64? = nil
    var expiresOn: Int64? = nil
    var extendedExpiresOn: Int64? = nil
    var refreshOn: Int64? = nil
    var unknown: UnknownFields = .none
    /// The key the entry was read under when it differs from the one this library would write.
    var originalKey: String? = nil

    /// Whether `other` is the same token slot: same account, environment, realm, client, type
    /// and the same scopes (compared case-insensitively, as a set).
    func isSameSlot(as other: CacheAccessToken) -> Bool {
        homeAccountId == other.homeAccountId && environment == other.environment && realm == other.realm
            && clientId == other.clientId
            && CacheScopes.normalizedTokenType(tokenType)
                == CacheScopes.normalizedTokenType(other.tokenType)
            && CacheScopes.sameSet(target, other.target)
    }
}
