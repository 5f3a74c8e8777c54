/// An id token of the unified cache schema (`credential_type` `IdToken`): one per account,
/// environment, realm and client.
struct CacheIdToken: Sendable, Equatable {
    /// The home account id. Setting another value forgets the entry's place (see ``source``).
    var homeAccountId: String { didSet { if homeAccountId != oldValue { source.place = nil } } }
    var environment: String { didSet { source.place = nil } }
    var clientId: String { didSet { source.place = nil } }
    var realm: String { didSet { source.place = nil } }
    /// The raw id_token (a JWT), held in memory or read from the cache file on demand.
    var secretValue: CacheSecret { didSet { source.place = nil } }
    var unknown: UnknownFields = .none { didSet { source.place = nil } }
    var originalKey: String? { didSet { source.place = nil } }
    /// Where the entry is in the cache file while the entity is unchanged; see ``CacheEntrySource``.
    var source = CacheEntrySource()

    /// The raw id_token; see ``CacheSecret/text``.
    var secret: String {
        get { secretValue.text }
        set { secretValue = CacheSecret(newValue) }
    }
}

extension CacheIdToken {
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
