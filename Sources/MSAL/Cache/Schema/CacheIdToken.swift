/// An id token of the unified cache schema (`credential_type` `IdToken`): one per account,
/// environment, realm and client.
struct CacheIdToken: Sendable, Equatable {
    var homeAccountId: String
    var environment: String
    var clientId: String
    var realm: String
    /// The raw id_token (a JWT), held in memory or read from the cache file on demand.
    var secretValue: CacheSecret
    var unknown: UnknownFields = .none
    var originalKey: String?

    /// The raw id_token; see ``CacheSecret/text``.
    var secret: String {
        get { secretValue.text }
        set { secretValue = CacheSecret(newValue) }
    }

    init(
        homeAccountId: String, environment: String, clientId: String, realm: String, secret: CacheSecret,
        unknown: UnknownFields = .none, originalKey: String? = nil
    ) {
        self.homeAccountId = homeAccountId
        self.environment = environment
        self.clientId = clientId
        self.realm = realm
        self.secretValue = secret
        self.unknown = unknown
        self.originalKey = originalKey
    }

    init(
        homeAccountId: String, environment: String, clientId: String, realm: String, secret: String,
        unknown: UnknownFields = .none, originalKey: String? = nil
    ) {
        self.init(
            homeAccountId: homeAccountId, environment: environment, clientId: clientId, realm: realm,
            secret: CacheSecret(secret), unknown: unknown, originalKey: originalKey)
    }
}
