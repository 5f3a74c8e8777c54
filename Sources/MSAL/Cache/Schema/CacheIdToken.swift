/// An id token of the unified cache schema (`credential_type` `IdToken`): one per account,
/// environment, realm and client.
struct CacheIdToken: Sendable, Equatable {
    var homeAccountId: String
    var environment: String
    var clientId: String
    var realm: String
    /// The raw id_token (a JWT).
    var secret: String
    var unknown: UnknownFields = .none
    var originalKey: String?
}
