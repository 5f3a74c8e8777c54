/// An id token of the unified cache schema (`credential_type` `IdToken`): one per account,
/// environment, realm and client.
package struct CacheIdToken: Sendable, Equatable {
    /// The home account id.
    var homeAccountId = ""
    var environment = ""
    var clientId = ""
    var realm = ""
    /// The raw id_token (a JWT); empty while the store keeps it as a place in the cache file
    /// (``TokenStore`` resolves it: read tokens through the store's queries).
    var secret = ""
    var unknown: UnknownFields = .none
    var originalKey: String? = nil
}
