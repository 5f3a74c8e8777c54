/// An id token of the unified cache schema (`credential_type` `IdToken`): one per account,
/// environment, realm and client.
struct CacheIdToken: Sendable, Equatable {
    /// The home account id.
    var homeAccountId: String
    var environment: String
    var clientId: String
    var realm: String
    /// The raw id_token (a JWT); empty while the store keeps it as a place in the cache file
    /// (``TokenStore`` resolves it: read tokens through the store's queries).
    var secret: String
    var unknown: UnknownFields = .none
    var originalKey: String?
}
