/// A refresh token of the unified cache schema (`credential_type` `RefreshToken`).
///
/// As MSAL Python stores it: one per account, environment and client, carrying `family_id` when
/// the client belongs to a family (FOCI). Family lookups find it by `family_id`.
struct CacheRefreshToken: Sendable, Equatable {
    /// The home account id. Setting another value forgets the entry's place (see ``source``).
    var homeAccountId: String { didSet { if homeAccountId != oldValue { source.place = nil } } }
    var environment: String { didSet { source.place = nil } }
    var clientId: String { didSet { source.place = nil } }
    /// The token (held in memory or read from the cache file on demand).
    var secretValue: CacheSecret { didSet { source.place = nil } }
    /// The scopes it was granted with, joined by spaces (optional in the schema).
    var target: String? { didSet { source.place = nil } }
    /// `"1"` for the Microsoft family; `nil` when not a family token.
    var familyId: String? { didSet { source.place = nil } }
    /// `last_modification_time` as written (integer or fractional epoch seconds).
    var lastModificationTime: String? { didSet { source.place = nil } }
    /// A realm, rarely present (refresh tokens are cross-tenant).
    var realm: String? { didSet { source.place = nil } }
    var unknown: UnknownFields = .none { didSet { source.place = nil } }
    var originalKey: String? { didSet { source.place = nil } }
    /// Where the entry is in the cache file while the entity is unchanged; see ``CacheEntrySource``.
    var source = CacheEntrySource()

    /// The token; see ``CacheSecret/text``.
    var secret: String {
        get { secretValue.text }
        set { secretValue = CacheSecret(newValue) }
    }

    /// Whether this token is a family refresh token.
    var isFamilyToken: Bool { !(familyId ?? "").isEmpty }

    /// `last_modification_time` as seconds, for choosing the newest of several tokens.
    var modificationSeconds: Double { lastModificationTime.flatMap(Double.init) ?? 0 }
}

extension CacheRefreshToken {
    init(
        homeAccountId: String, environment: String, clientId: String, secret: CacheSecret, target: String? = nil,
        familyId: String? = nil, lastModificationTime: String? = nil, realm: String? = nil,
        unknown: UnknownFields = .none, originalKey: String? = nil
    ) {
        self.homeAccountId = homeAccountId
        self.environment = environment
        self.clientId = clientId
        self.secretValue = secret
        self.target = target
        self.familyId = familyId
        self.lastModificationTime = lastModificationTime
        self.realm = realm
        self.unknown = unknown
        self.originalKey = originalKey
    }

    init(
        homeAccountId: String, environment: String, clientId: String, secret: String, target: String? = nil,
        familyId: String? = nil, lastModificationTime: String? = nil, realm: String? = nil,
        unknown: UnknownFields = .none, originalKey: String? = nil
    ) {
        self.init(
            homeAccountId: homeAccountId, environment: environment, clientId: clientId, secret: CacheSecret(secret),
            target: target, familyId: familyId, lastModificationTime: lastModificationTime, realm: realm,
            unknown: unknown, originalKey: originalKey)
    }
}
