/// An access token of the unified cache schema (`credential_type` `AccessToken`).
struct CacheAccessToken: Sendable, Equatable {
    /// The home account id. Setting another value forgets the entry's place (see ``source``).
    var homeAccountId: String { didSet { if homeAccountId != oldValue { source.place = nil } } }
    /// The cache (storage) environment: a host, without the port when it is 443.
    var environment: String { didSet { source.place = nil } }
    var clientId: String { didSet { source.place = nil } }
    /// The tenant id.
    var realm: String { didSet { source.place = nil } }
    /// The granted scopes joined by spaces, in the server's case.
    var target: String { didSet { source.place = nil } }
    /// The token (held in memory or read from the cache file on demand).
    var secretValue: CacheSecret { didSet { source.place = nil } }
    /// `token_type`; `nil` when the entry has none (Bearer).
    var tokenType: String? { didSet { source.place = nil } }
    /// Epoch seconds (written as strings).
    var cachedAt: Int64? { didSet { source.place = nil } }
    var expiresOn: Int64? { didSet { source.place = nil } }
    var extendedExpiresOn: Int64? { didSet { source.place = nil } }
    var refreshOn: Int64? { didSet { source.place = nil } }
    var unknown: UnknownFields = .none { didSet { source.place = nil } }
    /// The key the entry was read under when it differs from the one this library would write.
    var originalKey: String? { didSet { source.place = nil } }
    /// Where the entry is in the cache file while the entity is unchanged; see ``CacheEntrySource``.
    var source = CacheEntrySource()

    /// The token; see ``CacheSecret/text``.
    var secret: String {
        get { secretValue.text }
        set { secretValue = CacheSecret(newValue) }
    }

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

extension CacheAccessToken {
    init(
        homeAccountId: String, environment: String, clientId: String, realm: String, target: String,
        secret: CacheSecret, tokenType: String? = nil, cachedAt: Int64? = nil, expiresOn: Int64? = nil,
        extendedExpiresOn: Int64? = nil, refreshOn: Int64? = nil, unknown: UnknownFields = .none,
        originalKey: String? = nil
    ) {
        self.homeAccountId = homeAccountId
        self.environment = environment
        self.clientId = clientId
        self.realm = realm
        self.target = target
        self.secretValue = secret
        self.tokenType = tokenType
        self.cachedAt = cachedAt
        self.expiresOn = expiresOn
        self.extendedExpiresOn = extendedExpiresOn
        self.refreshOn = refreshOn
        self.unknown = unknown
        self.originalKey = originalKey
    }

    init(
        homeAccountId: String, environment: String, clientId: String, realm: String, target: String,
        secret: String, tokenType: String? = nil, cachedAt: Int64? = nil, expiresOn: Int64? = nil,
        extendedExpiresOn: Int64? = nil, refreshOn: Int64? = nil, unknown: UnknownFields = .none,
        originalKey: String? = nil
    ) {
        self.init(
            homeAccountId: homeAccountId, environment: environment, clientId: clientId, realm: realm, target: target,
            secret: CacheSecret(secret), tokenType: tokenType, cachedAt: cachedAt, expiresOn: expiresOn,
            extendedExpiresOn: extendedExpiresOn, refreshOn: refreshOn, unknown: unknown, originalKey: originalKey)
    }
}
