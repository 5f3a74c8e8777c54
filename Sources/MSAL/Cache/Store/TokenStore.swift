/// The token cache in memory: per section a dictionary from the entry's key (as MSAL for Python's
/// key makers build it) to the entry, so two entries never share a key, and an index from home
/// account id to the account's keys (app metadata under the empty id), so a silent lookup costs
/// the same at one account or a hundred thousand. What this library does not model stays as it
/// was written: unknown members (``UnknownFields``), entries it cannot read (``keptEntries``),
/// sections it does not know (``unknownSections``, with its own `MSALDiscovery`, edited as JSON
/// values). A value without locking (``TokenCache``).
package struct TokenStore: Sendable {
    package fileprivate(set) var accessTokens: [String: CacheAccessToken] = [:]
    fileprivate(set) var refreshTokens: [String: CacheRefreshToken] = [:]
    fileprivate(set) var idTokens: [String: CacheIdToken] = [:]
    fileprivate(set) var accounts: [String: CacheAccount] = [:]
    fileprivate(set) var appMetadata: [String: CacheAppMetadata] = [:]
    fileprivate(set) var resourceTokens: [String: CacheResourceToken] = [:]
    /// The `AccountMetadata` section by client id.
    private(set) var accountMetadata: [String: ClientMetadata] = [:]
    /// Home account id → the sections and keys of the account's entries.
    private(set) var index: [String: [(section: CacheSection, key: String)]] = [:]
    /// Entries of the known sections this library cannot model (another program's shape, or
    /// damaged), by section and key: their text as read, `"key":value`, written back as it is.
    var keptEntries: [CacheSection: [String: String]] = [:]
    /// Known sections whose value is not an object, as read (written back while they are empty).
    var unusableSections: [CacheSection: String] = [:]
    /// Top-level sections this library does not model as entries, as read, in document order.
    private(set) var unknownSections: [(name: String, rawValue: String)] = []

    /// One client's object of the `AccountMetadata` section: its records by home account id, those
    /// this library cannot read as their text (`"id":value`), and the object's other members.
    struct ClientMetadata: Sendable {
        var records: [String: CacheAccountMetadata] = [:]
        var keptRecords: [String: String] = [:]
        var unknown = UnknownFields.none
    }

    package init() {}

    // MARK: - Entries by key

    /// Puts `entity` under `key`, in place of any entry of its section there. Returns whether
    /// one was replaced.
    @discardableResult
    mutating func put<Entity: StoredEntity>(_ entity: Entity, key: String) -> Bool {
        var entity = entity
        let kept = keptEntries[Entity.section]?.removeValue(forKey: key) != nil
        var position = index.index(forKey: entity.homeAccountId)
        if let position { entity.homeAccountId = index.keys[position] }  // one string for the account's entries
        let old = self[keyPath: Entity.table].updateValue(entity, forKey: key)
        if let old {
            unlink(Entity.section, key, old.homeAccountId)
            position = index.index(forKey: entity.homeAccountId)
        }
        if let position {
            index.values[position].append((Entity.section, key))
        } else {
            index[entity.homeAccountId] = [(Entity.section, key)]
        }
        return old != nil || kept
    }

    /// Removes the entity of `type` under `key`, if there is one; returns whether there was.
    @discardableResult
    mutating func remove<Entity: StoredEntity>(_ type: Entity.Type, key: String) -> Bool {
        guard let old = self[keyPath: Entity.table].removeValue(forKey: key) else { return false }
        unlink(Entity.section, key, old.homeAccountId)
        return true
    }

    private mutating func unlink(_ section: CacheSection, _ key: String, _ homeAccountId: String) {
        guard let position = index.index(forKey: homeAccountId) else { return }
        index.values[position].removeAll { $0.section == section && $0.key == key }
        if index.values[position].isEmpty { index.remove(at: position) }
    }

    /// Keeps an entry this library cannot model (`raw` is `"key":value` as read) under `key`, in
    /// place of any entry of the section there. Returns whether one was replaced.
    @discardableResult
    mutating func keep(_ raw: String, key: String, in section: CacheSection) -> Bool {
        let replaced = keptEntries[section, default: [:]].updateValue(raw, forKey: key) != nil
        let removed =
            switch section {
            case .accessToken: remove(CacheAccessToken.self, key: key)
            case .refreshToken: remove(CacheRefreshToken.self, key: key)
            case .idToken: remove(CacheIdToken.self, key: key)
            case .account: remove(CacheAccount.self, key: key)
            case .appMetadata: remove(CacheAppMetadata.self, key: key)
            case .resourceAccessToken: remove(CacheResourceToken.self, key: key)
            case .accountMetadata: accountMetadata.removeValue(forKey: key) != nil
            }
        return replaced || removed
    }

    /// An account's entities of `type`, with their keys.
    func entities<Entity: StoredEntity>(_ type: Entity.Type, of homeAccountId: String) -> [(
        key: String, entity: Entity
    )] {
        var found: [(key: String, entity: Entity)] = []
        forEach(type, of: homeAccountId) { found.append(($0, $1)) }
        return found
    }

    /// Calls `body` with each of an account's entities of `type` and its key, in the order
    /// they joined the store.
    func forEach<Entity: StoredEntity>(
        _ type: Entity.Type, of homeAccountId: String, _ body: (String, Entity) -> Void
    ) {
        guard let entries = index[homeAccountId] else { return }
        for entry in entries where entry.section == Entity.section {
            if let entity = self[keyPath: Entity.table][entry.key] { body(entry.key, entity) }
        }
    }

    /// The home account ids of every account with an entry.
    var homeAccountIds: [String] { index.keys.filter { !$0.isEmpty } }

    // MARK: - Account metadata

    func accountMetadata(clientId: String, homeAccountId: String) -> CacheAccountMetadata? {
        accountMetadata[clientId]?.records[homeAccountId]
    }

    /// Sets a record of the `AccountMetadata` section; a client object of another shape under its
    /// client id gives way (its key is ours now).
    mutating func upsert(_ record: CacheAccountMetadata) {
        keptEntries[.accountMetadata]?[record.clientId] = nil
        accountMetadata[record.clientId, default: ClientMetadata()].records[record.homeAccountId] = record
        accountMetadata[record.clientId]?.keptRecords[record.homeAccountId] = nil
    }

    /// Sets a client's object of the `AccountMetadata` section (as read).
    mutating func setClientMetadata(_ client: ClientMetadata, clientId: String) {
        keptEntries[.accountMetadata]?[clientId] = nil
        accountMetadata[clientId] = client
    }

    /// Removes the account metadata records (every client's) of `homeAccountIds`.
    mutating func removeAccountMetadata(of homeAccountIds: Set<String>) {
        guard !homeAccountIds.isEmpty else { return }
        for (clientId, client) in accountMetadata {
            accountMetadata[clientId]?.records = client.records.filter { !homeAccountIds.contains($0.key) }
        }
    }

    // MARK: - Sections kept whole

    /// The raw JSON of a top-level section this library does not model as entries, or `nil`.
    func unknownSection(named name: String) -> String? {
        unknownSections.last { $0.name == name }?.rawValue
    }

    /// Sets (or, with `nil`, removes) a top-level section kept as raw JSON.
    mutating func setUnknownSection(named name: String, rawValue: String?) {
        unknownSections.removeAll { $0.name == name }
        if let rawValue { unknownSections.append((name, rawValue)) }
    }

    /// Sign-out with `wipeCacheForAllAccounts`: every entry this library models (tokens, also
    /// those for resources, accounts, app and account metadata) goes; entries and sections it does
    /// not model stay (they are not its data).
    mutating func wipeAllAccounts() {
        var empty = TokenStore()
        empty.keptEntries = keptEntries
        empty.unusableSections = unusableSections
        empty.unknownSections = unknownSections
        for (clientId, client) in accountMetadata where !client.keptRecords.isEmpty {
            empty.accountMetadata[clientId] = ClientMetadata(keptRecords: client.keptRecords)
        }
        self = empty
    }
}

/// An entity kept in the account index: where its dictionary is, and which entities of its
/// account it stands for.
protocol StoredEntity: CacheEntity {
    static var table: WritableKeyPath<TokenStore, [String: Self]> { get }
    var homeAccountId: String { get set }
    var environment: String { get }
    /// Whether `other` (of the same account) is the same token or record, whatever its key.
    func isSameSlot(as other: Self) -> Bool
    /// Of two of the same slot in a document, whether this one is newer (else the later stays).
    func isNewer(than other: Self) -> Bool
}

extension StoredEntity {
    func isNewer(than other: Self) -> Bool { false }
}

extension CacheAccessToken: StoredEntity {
    static var table: WritableKeyPath<TokenStore, [String: Self]> { \.accessTokens }
    func isNewer(than other: Self) -> Bool { (cachedAt ?? 0) > (other.cachedAt ?? 0) }
}

extension CacheRefreshToken: StoredEntity {
    static var table: WritableKeyPath<TokenStore, [String: Self]> { \.refreshTokens }
    func isSameSlot(as other: Self) -> Bool { environment == other.environment && clientId == other.clientId }
    func isNewer(than other: Self) -> Bool { modificationSeconds > other.modificationSeconds }
}

extension CacheResourceToken: StoredEntity {
    static var table: WritableKeyPath<TokenStore, [String: Self]> { \.resourceTokens }
    var homeAccountId: String {
        get { token.homeAccountId }
        set { token.homeAccountId = newValue }
    }
    var environment: String { token.environment }
    func isSameSlot(as other: Self) -> Bool { resource == other.resource && token.isSameSlot(as: other.token) }
    func isNewer(than other: Self) -> Bool { token.isNewer(than: other.token) }
}

extension CacheIdToken: StoredEntity {
    static var table: WritableKeyPath<TokenStore, [String: Self]> { \.idTokens }
    func isSameSlot(as other: Self) -> Bool {
        environment == other.environment && realm == other.realm && clientId == other.clientId
    }
}

/// App metadata belongs to no account: the index keeps it under the empty id.
extension CacheAppMetadata: StoredEntity {
    static var table: WritableKeyPath<TokenStore, [String: Self]> { \.appMetadata }
    var homeAccountId: String {
        get { "" }
        set {}
    }
    func isSameSlot(as other: Self) -> Bool { environment == other.environment && clientId == other.clientId }
}

extension CacheAccount: StoredEntity {
    static var table: WritableKeyPath<TokenStore, [String: Self]> { \.accounts }
    func isSameSlot(as other: Self) -> Bool { environment == other.environment && realm == other.realm }
}
