import Foundation

/// The in-memory token cache: the entities in document order, what the store knows of their
/// places in the cache file beside them (``CacheContents/origins``), and the indexes that make the
/// silent path cost the same with one account or a hundred thousand.
///
/// Every credential and account record is reachable from its home account's bucket (a plain
/// `Dictionary` from home account id to the account's few entity references), so a lookup is
/// one hash of the home account id and a scan of that account's entries. App metadata and
/// account metadata have their own dictionaries. Removal swaps the last entry into the hole, so
/// it is O(1) too.
///
/// A token's secret may be kept as its place in the cache file rather than in memory (its
/// entity's `secret` is then empty): read tokens through the store's queries and the
/// `…(at:)` accessors, which resolve it.
///
/// A value type without locking: ``TokenCache`` guards it.
package struct TokenStore: Sendable {
    enum Kind: UInt8, Sendable {
        case accessToken, refreshToken, idToken, account
    }

    /// An entity's place: its kind and its index in that kind's array.
    struct EntityRef: Hashable, Sendable {
        var kind: Kind
        var slot: Int32
    }

    struct Bucket: Sendable {
        /// The home account id (entities of the account share this string's storage).
        var homeAccountId: String
        var refs: [EntityRef]
    }

    struct AppKey: Hashable, Sendable {
        var environment: String
        var clientId: String
    }

    struct MetadataKey: Hashable, Sendable {
        var clientId: String
        var homeAccountId: String
    }

    package private(set) var contents: CacheContents
    /// Home account id → the account's bucket.
    private(set) var buckets: [String: Bucket] = [:]
    fileprivate var appIndex: [AppKey: Int] = [:]
    private var metadataIndex: [MetadataKey: Int] = [:]
    /// Lowercased username → home account ids; built on first use.
    fileprivate var usernameIndex: [String: [String]]?

    /// An empty cache.
    package init() {
        contents = CacheContents()
    }

    /// A cache holding `contents` (as read from a document): indexes the entities where they
    /// are, and drops entries that duplicate another one's meaning (keeping the newer) or key
    /// (keeping the later: ``dropKeyClashes(atLoad:)``).
    init(_ loaded: consuming CacheContents) {
        let accountMetadata = loaded.accountMetadata
        loaded.accountMetadata = []
        contents = consume loaded
        contents.origins.accessTokens.pad(to: contents.accessTokens.count)
        contents.origins.refreshTokens.pad(to: contents.refreshTokens.count)
        contents.origins.idTokens.pad(to: contents.idTokens.count)
        contents.origins.accounts.pad(to: contents.accounts.count)
        contents.origins.appMetadata.pad(to: contents.appMetadata.count)
        dropKeyClashes(atLoad: true)
        buckets.reserveCapacity(contents.accounts.count + contents.refreshTokens.count / 4 + 16)
        var losers = Set<EntityRef>()
        for slot in contents.accessTokens.indices {
            let existing = indexLoaded(.accessToken, slot, contents.accessTokens[slot].homeAccountId).first {
                contents.accessTokens[$0].isSameSlot(as: contents.accessTokens[slot])
                    && !losers.contains(EntityRef(kind: .accessToken, slot: Int32($0)))
            }
            if let existing {
                let newer =
                    (contents.accessTokens[slot].cachedAt ?? 0) >= (contents.accessTokens[existing].cachedAt ?? 0)
                losers.insert(EntityRef(kind: .accessToken, slot: Int32(newer ? existing : slot)))
            }
        }
        for slot in contents.refreshTokens.indices {
            let existing = indexLoaded(.refreshToken, slot, contents.refreshTokens[slot].homeAccountId).first {
                contents.refreshTokens[$0].environment == contents.refreshTokens[slot].environment
                    && contents.refreshTokens[$0].clientId == contents.refreshTokens[slot].clientId
                    && !losers.contains(EntityRef(kind: .refreshToken, slot: Int32($0)))
            }
            if let existing {
                let newer =
                    contents.refreshTokens[slot].modificationSeconds
                    >= contents.refreshTokens[existing].modificationSeconds
                losers.insert(EntityRef(kind: .refreshToken, slot: Int32(newer ? existing : slot)))
            }
        }
        for slot in contents.idTokens.indices {
            let existing = indexLoaded(.idToken, slot, contents.idTokens[slot].homeAccountId).first {
                contents.idTokens[$0].environment == contents.idTokens[slot].environment
                    && contents.idTokens[$0].realm == contents.idTokens[slot].realm
                    && contents.idTokens[$0].clientId == contents.idTokens[slot].clientId
                    && !losers.contains(EntityRef(kind: .idToken, slot: Int32($0)))
            }
            if let existing { losers.insert(EntityRef(kind: .idToken, slot: Int32(existing))) }
        }
        for slot in contents.accounts.indices {
            let existing = indexLoaded(.account, slot, contents.accounts[slot].homeAccountId).first {
                contents.accounts[$0].environment == contents.accounts[slot].environment
                    && contents.accounts[$0].realm == contents.accounts[slot].realm
                    && !losers.contains(EntityRef(kind: .account, slot: Int32($0)))
            }
            if let existing { losers.insert(EntityRef(kind: .account, slot: Int32(existing))) }
        }
        // Highest slot first, so swapping the last entity in never moves a pending loser.
        for ref in losers.sorted(by: { $0.slot > $1.slot }) { remove(ref) }
        var duplicateMetadata: [Int] = []
        for index in contents.appMetadata.indices {
            let key = AppKey(
                environment: contents.appMetadata[index].environment, clientId: contents.appMetadata[index].clientId)
            if let existing = appIndex[key] { duplicateMetadata.append(existing) }
            appIndex[key] = index
        }
        for index in duplicateMetadata.sorted(by: >) { removeAppMetadata(at: index) }
        for record in accountMetadata { upsert(record) }
    }

    /// Links loaded entity `slot` of `kind` into the bucket of `id` (one lookup), giving the
    /// entity the bucket's id string; returns the slots of the entities of `kind` that were
    /// already in the bucket.
    private mutating func indexLoaded(_ kind: Kind, _ slot: Int, _ id: String) -> [Int] {
        let ref = EntityRef(kind: kind, slot: Int32(slot))
        guard let position = buckets.index(forKey: id) else {
            var refs = [ref]
            refs.reserveCapacity(Self.bucketCapacity)
            buckets[id] = Bucket(homeAccountId: id, refs: refs)
            return []
        }
        let earlier = buckets.values[position].refs.compactMap { $0.kind == kind ? Int($0.slot) : nil }
        buckets.values[position].refs.append(ref)
        setHomeAccountId(buckets.values[position].homeAccountId, of: ref)
        return earlier
    }

    /// Gives the entity at `ref` the shared id string (the same id: its origin stays valid).
    private mutating func setHomeAccountId(_ shared: String, of ref: EntityRef) {
        let slot = Int(ref.slot)
        switch ref.kind {
        case .accessToken: contents.accessTokens[slot].homeAccountId = shared
        case .refreshToken: contents.refreshTokens[slot].homeAccountId = shared
        case .idToken: contents.idTokens[slot].homeAccountId = shared
        case .account: contents.accounts[slot].homeAccountId = shared
        }
    }

    /// After a save to `file`: the store reads its secrets from there and copies its entries from
    /// there on the next save (``EntryOrigin``), so it holds no secret text and no longer keeps
    /// the previous file open. An entry whose bytes could not be checked while written is written
    /// from its fields again next time.
    mutating func place(in file: CacheFileSnapshot, _ placements: CacheDocumentWriter.Placements) {
        let complete =
            placements.accessTokens.count == contents.accessTokens.count
            && placements.refreshTokens.count == contents.refreshTokens.count
            && placements.idTokens.count == contents.idTokens.count
            && placements.accounts.count == contents.accounts.count
            && placements.appMetadata.count == contents.appMetadata.count
        guard complete else {
            // Not where the entities went: keep them in memory, with no place in any file.
            forgetSourceFile()
            return
        }
        func origins(_ placed: [EntryPlacement], _ clear: (Int) -> Void) -> [EntryOrigin] {
            placed.indices.map { index in
                let placement = placed[index]
                guard let secret = placement.secret, secret.isKeptInFile else {
                    return EntryOrigin(entry: placement.entry, secret: nil)
                }
                clear(index)
                return EntryOrigin(
                    entry: placement.entry,
                    secret: SecretSpan(
                        offset: secret.offset, length: Int32(secret.length), escaped: secret.escaped,
                        check: secret.check))
            }
        }
        contents.origins.accessTokens = origins(placements.accessTokens) { contents.accessTokens[$0].secret = "" }
        contents.origins.refreshTokens = origins(placements.refreshTokens) { contents.refreshTokens[$0].secret = "" }
        contents.origins.idTokens = origins(placements.idTokens) { contents.idTokens[$0].secret = "" }
        contents.origins.accounts = origins(placements.accounts) { _ in }
        contents.origins.appMetadata = origins(placements.appMetadata) { _ in }
        contents.sourceFile = file
    }

    /// Reads every secret kept as a place into memory and forgets all places: the entities no
    /// longer depend on ``CacheContents/sourceFile``. A secret the file no longer holds becomes
    /// empty (logged by the snapshot).
    mutating func forgetSourceFile() {
        for slot in contents.accessTokens.indices where contents.origins.accessTokens[originAt: slot].secret != nil {
            contents.accessTokens[slot].secret = secret(.accessToken, slot) ?? ""
        }
        for slot in contents.refreshTokens.indices where contents.origins.refreshTokens[originAt: slot].secret != nil {
            contents.refreshTokens[slot].secret = secret(.refreshToken, slot) ?? ""
        }
        for slot in contents.idTokens.indices where contents.origins.idTokens[originAt: slot].secret != nil {
            contents.idTokens[slot].secret = secret(.idToken, slot) ?? ""
        }
        contents.origins = CacheOrigins()
        contents.origins.accessTokens.pad(to: contents.accessTokens.count)
        contents.origins.refreshTokens.pad(to: contents.refreshTokens.count)
        contents.origins.idTokens.pad(to: contents.idTokens.count)
        contents.origins.accounts.pad(to: contents.accounts.count)
        contents.origins.appMetadata.pad(to: contents.appMetadata.count)
        contents.sourceFile = nil
    }

    // MARK: - Secrets

    /// The secret of token `slot` of `kind`: the entity's, or read from the source file when the
    /// store keeps it as a place there; `nil` when the file no longer holds it.
    func secret(_ kind: Kind, _ slot: Int) -> String? {
        let origin: EntryOrigin
        let held: String
        switch kind {
        case .accessToken:
            (origin, held) = (contents.origins.accessTokens[originAt: slot], contents.accessTokens[slot].secret)
        case .refreshToken:
            (origin, held) = (contents.origins.refreshTokens[originAt: slot], contents.refreshTokens[slot].secret)
        case .idToken: (origin, held) = (contents.origins.idTokens[originAt: slot], contents.idTokens[slot].secret)
        case .account: return nil
        }
        guard let span = origin.secret else { return held }
        guard let file = contents.sourceFile else { return nil }
        return file.text(of: span.range(in: file))
    }

    /// Whether the secret of token `slot` of `kind` is kept as a place in the source file.
    func keepsSecretInFile(_ kind: Kind, _ slot: Int) -> Bool {
        switch kind {
        case .accessToken: contents.origins.accessTokens[originAt: slot].secret != nil
        case .refreshToken: contents.origins.refreshTokens[originAt: slot].secret != nil
        case .idToken: contents.origins.idTokens[originAt: slot].secret != nil
        case .account: false
        }
    }

    /// The access token at `index` of ``CacheContents/accessTokens`` with its secret in memory, or
    /// `nil` when the file no longer holds the secret (a cache miss).
    func accessToken(at index: Int) -> CacheAccessToken? {
        guard let secret = secret(.accessToken, index) else { return nil }
        var token = contents.accessTokens[index]
        token.secret = secret
        return token
    }

    /// The secret of the access token at `index`; `nil` when the file no longer holds it.
    func accessTokenSecret(at index: Int) -> String? {
        secret(.accessToken, index)
    }

    /// The refresh token at `index` with its secret in memory, or `nil` (see ``accessToken(at:)``).
    func refreshToken(at index: Int) -> CacheRefreshToken? {
        guard let secret = secret(.refreshToken, index) else { return nil }
        var token = contents.refreshTokens[index]
        token.secret = secret
        return token
    }

    /// The id token at `index` with its secret in memory, or `nil` (see ``accessToken(at:)``).
    func idToken(at index: Int) -> CacheIdToken? {
        guard let secret = secret(.idToken, index) else { return nil }
        var token = contents.idTokens[index]
        token.secret = secret
        return token
    }

    /// Counts of each kind, for tests and logs.
    var counts: (accessTokens: Int, refreshTokens: Int, idTokens: Int, accounts: Int, appMetadata: Int) {
        (
            contents.accessTokens.count, contents.refreshTokens.count, contents.idTokens.count,
            contents.accounts.count, contents.appMetadata.count
        )
    }

    /// How many entities of every kind the store holds.
    var entityCount: Int {
        contents.accessTokens.count + contents.refreshTokens.count + contents.idTokens.count + contents.accounts.count
            + contents.appMetadata.count + contents.accountMetadata.count
    }

    var isEmpty: Bool {
        contents.accessTokens.isEmpty && contents.refreshTokens.isEmpty && contents.idTokens.isEmpty
            && contents.accounts.isEmpty && contents.appMetadata.isEmpty && contents.accountMetadata.isEmpty
    }

    // MARK: - Buckets

    /// The refs of an account (empty when unknown).
    func refs(_ homeAccountId: String) -> [EntityRef] {
        buckets[homeAccountId]?.refs ?? []
    }

    /// Adds `ref` to the bucket of `homeAccountId` and returns the bucket's shared id string.
    fileprivate mutating func link(_ ref: EntityRef, _ homeAccountId: String) -> String {
        if let position = buckets.index(forKey: homeAccountId) {
            buckets.values[position].refs.append(ref)
            return buckets.values[position].homeAccountId
        }
        var refs = [ref]
        refs.reserveCapacity(Self.bucketCapacity)
        buckets[homeAccountId] = Bucket(homeAccountId: homeAccountId, refs: refs)
        return homeAccountId
    }

    /// Room made in a new bucket: an account's access, refresh and id tokens and its record.
    static let bucketCapacity = 4

    fileprivate mutating func unlink(_ ref: EntityRef, _ homeAccountId: String) {
        guard let position = buckets.index(forKey: homeAccountId) else { return }
        buckets.values[position].refs.removeAll { $0 == ref }
        if buckets.values[position].refs.isEmpty { buckets.remove(at: position) }
    }

    private mutating func relink(_ old: EntityRef, to new: EntityRef, _ homeAccountId: String) {
        guard let position = buckets.index(forKey: homeAccountId),
            let index = buckets.values[position].refs.firstIndex(of: old)
        else { return }
        buckets.values[position].refs[index] = new
    }

    // MARK: - Insert and remove, by kind

    /// Inserts or replaces the access token with the same slot (account, environment, realm,
    /// client, type and scope set).
    mutating func upsert(_ token: CacheAccessToken, replacingOlder: Bool = false) {
        if let existing = firstRef(
            .accessToken, token.homeAccountId, where: { contents.accessTokens[$0].isSameSlot(as: token) })
        {
            if replacingOlder, (contents.accessTokens[existing].cachedAt ?? 0) > (token.cachedAt ?? 0) { return }
            var replacement = token
            replacement.homeAccountId = contents.accessTokens[existing].homeAccountId
            contents.accessTokens[existing] = replacement
            contents.origins.accessTokens[existing] = .none
            return
        }
        var token = token
        token.homeAccountId = link(
            EntityRef(kind: .accessToken, slot: Int32(contents.accessTokens.count)), token.homeAccountId)
        contents.accessTokens.append(token)
        contents.origins.accessTokens.append(.none)
    }

    /// Inserts or replaces the refresh token of the same account, environment and client
    /// (MSAL Python's one-per-client shape; MSAL.NET's family-keyed and MSAL for iOS's
    /// twice-stored tokens collapse into it).
    mutating func upsert(_ token: CacheRefreshToken, replacingOlder: Bool = false) {
        let matches = refs(token.homeAccountId).filter { ref in
            ref.kind == .refreshToken
                && {
                    let other = contents.refreshTokens[Int(ref.slot)]
                    return other.environment == token.environment && other.clientId == token.clientId
                }()
        }
        if replacingOlder,
            let newer = matches.first(where: { ref in
                contents.refreshTokens[Int(ref.slot)].modificationSeconds > token.modificationSeconds
            })
        {
            _ = newer
            return
        }
        // Remove from the highest slot down so swap-removal does not move a later match.
        for ref in matches.sorted(by: { $0.slot > $1.slot }) { remove(ref) }
        var token = token
        token.homeAccountId = link(
            EntityRef(kind: .refreshToken, slot: Int32(contents.refreshTokens.count)), token.homeAccountId)
        contents.refreshTokens.append(token)
        contents.origins.refreshTokens.append(.none)
    }

    mutating func upsert(_ token: CacheIdToken) {
        if let existing = firstRef(
            .idToken, token.homeAccountId,
            where: {
                let other = contents.idTokens[$0]
                return other.environment == token.environment && other.realm == token.realm
                    && other.clientId == token.clientId
            })
        {
            var replacement = token
            replacement.homeAccountId = contents.idTokens[existing].homeAccountId
            contents.idTokens[existing] = replacement
            contents.origins.idTokens[existing] = .none
            return
        }
        var token = token
        token.homeAccountId = link(EntityRef(kind: .idToken, slot: Int32(contents.idTokens.count)), token.homeAccountId)
        contents.idTokens.append(token)
        contents.origins.idTokens.append(.none)
    }

    /// Inserts or replaces the account record of the same home account, environment and realm;
    /// `keepUnknown` carries the replaced record's unknown fields and original key over.
    mutating func upsert(_ account: CacheAccount, keepUnknown: Bool) {
        if let existing = firstRef(
            .account, account.homeAccountId,
            where: {
                let other = contents.accounts[$0]
                return other.environment == account.environment && other.realm == account.realm
            })
        {
            let old = contents.accounts[existing]
            var replacement = account
            replacement.homeAccountId = old.homeAccountId
            if keepUnknown {
                if replacement.unknown.isEmpty { replacement.unknown = old.unknown }
                if replacement.originalKey == nil { replacement.originalKey = old.originalKey }
                if replacement.clientInfo == nil { replacement.clientInfo = old.clientInfo }
            }
            if old.username != replacement.username { usernameIndex = nil }
            contents.accounts[existing] = replacement
            contents.origins.accounts[existing] = .none
            return
        }
        var account = account
        account.homeAccountId = link(
            EntityRef(kind: .account, slot: Int32(contents.accounts.count)), account.homeAccountId)
        if usernameIndex != nil {
            usernameIndex![account.username.lowercased(), default: []].append(account.homeAccountId)
        }
        contents.accounts.append(account)
        contents.origins.accounts.append(.none)
    }

    mutating func upsert(_ metadata: CacheAppMetadata, keepUnknown: Bool) {
        let key = AppKey(environment: metadata.environment, clientId: metadata.clientId)
        if let existing = appIndex[key] {
            var replacement = metadata
            if keepUnknown {
                let old = contents.appMetadata[existing]
                if replacement.unknown.isEmpty { replacement.unknown = old.unknown }
                if replacement.originalKey == nil { replacement.originalKey = old.originalKey }
            }
            contents.appMetadata[existing] = replacement
            contents.origins.appMetadata[existing] = .none
            return
        }
        appIndex[key] = contents.appMetadata.count
        contents.appMetadata.append(metadata)
        contents.origins.appMetadata.append(.none)
    }

    mutating func upsert(_ record: CacheAccountMetadata) {
        let key = MetadataKey(clientId: record.clientId, homeAccountId: record.homeAccountId)
        if let existing = metadataIndex[key] {
            contents.accountMetadata[existing] = record
            return
        }
        metadataIndex[key] = contents.accountMetadata.count
        contents.accountMetadata.append(record)
    }

    /// Removes the account metadata records (every client's) of `homeAccountIds`.
    mutating func removeAccountMetadata(of homeAccountIds: Set<String>) {
        guard !homeAccountIds.isEmpty else { return }
        contents.accountMetadata.removeAll { homeAccountIds.contains($0.homeAccountId) }
        metadataIndex = [:]
        for (index, record) in contents.accountMetadata.enumerated() {
            metadataIndex[MetadataKey(clientId: record.clientId, homeAccountId: record.homeAccountId)] = index
        }
    }

    /// Removes the entity at `ref` (swapping the last entity of its kind into its place).
    mutating func remove(_ ref: EntityRef) {
        let slot = Int(ref.slot)
        let owners: (removed: String, moved: String?)
        switch ref.kind {
        case .accessToken:
            owners = Self.swapRemove(slot, &contents.accessTokens, &contents.origins.accessTokens) { $0.homeAccountId }
        case .refreshToken:
            owners = Self.swapRemove(slot, &contents.refreshTokens, &contents.origins.refreshTokens) {
                $0.homeAccountId
            }
        case .idToken:
            owners = Self.swapRemove(slot, &contents.idTokens, &contents.origins.idTokens) { $0.homeAccountId }
        case .account:
            usernameIndex = nil
            owners = Self.swapRemove(slot, &contents.accounts, &contents.origins.accounts) { $0.homeAccountId }
        }
        unlink(ref, owners.removed)
        if let moved = owners.moved {
            // The entity that was last (slot == new count) now lives at `slot`.
            relink(EntityRef(kind: ref.kind, slot: Int32(slotCount(ref.kind))), to: ref, moved)
        }
    }

    private func slotCount(_ kind: Kind) -> Int {
        switch kind {
        case .accessToken: contents.accessTokens.count
        case .refreshToken: contents.refreshTokens.count
        case .idToken: contents.idTokens.count
        case .account: contents.accounts.count
        }
    }

    /// Removes `list[slot]` and its origin by moving the last element into it; returns the
    /// removed entity's owner and, when an element moved, the moved one's owner.
    private static func swapRemove<Entity>(
        _ slot: Int, _ list: inout [Entity], _ origins: inout [EntryOrigin], _ owner: (Entity) -> String
    ) -> (removed: String, moved: String?) {
        let removed = owner(list[slot])
        let last = list.count - 1
        origins.pad(to: list.count)
        guard slot != last else {
            list.removeLast()
            origins.removeLast()
            return (removed, nil)
        }
        let moved = owner(list[last])
        list.swapAt(slot, last)
        list.removeLast()
        origins.swapAt(slot, last)
        origins.removeLast()
        return (removed, moved)
    }

    mutating func removeAppMetadata(at index: Int) {
        let removed = contents.appMetadata[index]
        appIndex[AppKey(environment: removed.environment, clientId: removed.clientId)] = nil
        let last = contents.appMetadata.count - 1
        if index != last {
            let moved = contents.appMetadata[last]
            contents.appMetadata.swapAt(index, last)
            contents.origins.appMetadata.swapAt(index, last)
            appIndex[AppKey(environment: moved.environment, clientId: moved.clientId)] = index
        }
        contents.appMetadata.removeLast()
        contents.origins.appMetadata.removeLast()
    }

    /// Removes everything this library models; unknown sections stay.
    mutating func removeAllEntities() {
        let unknownSections = contents.unknownSections
        let keptEntries = contents.keptEntries
        let unusableSections = contents.unusableSections
        let keptRecords = contents.accountMetadataKept
        self = TokenStore()
        contents.accountMetadataKept = keptRecords
        contents.unknownSections = unknownSections
        contents.keptEntries = keptEntries
        contents.unusableSections = unusableSections
    }

    /// The raw JSON of a top-level section this library does not model as entities (another
    /// library's section, or ours such as the discovery cache), or `nil`.
    func unknownSection(named name: String) -> String? {
        contents.unknownSections.first { $0.name == name }?.rawValue
    }

    /// Sets (or, with `nil`, removes) a top-level section kept as raw JSON.
    mutating func setUnknownSection(named name: String, rawValue: String?) {
        contents.unknownSections.removeAll { $0.name == name }
        if let rawValue { contents.unknownSections.append((name, rawValue)) }
    }

    /// The first slot of `kind` in the account's bucket satisfying `predicate`.
    func firstRef(_ kind: Kind, _ homeAccountId: String, where predicate: (Int) -> Bool) -> Int? {
        guard let bucket = buckets[homeAccountId] else { return nil }
        for ref in bucket.refs where ref.kind == kind && predicate(Int(ref.slot)) {
            return Int(ref.slot)
        }
        return nil
    }

    // MARK: - Indexes used by queries

    func appMetadataIndex(environment: String, clientId: String) -> Int? {
        appIndex[AppKey(environment: environment, clientId: clientId)]
    }

    func accountMetadataIndex(clientId: String, homeAccountId: String) -> Int? {
        metadataIndex[MetadataKey(clientId: clientId, homeAccountId: homeAccountId)]
    }

    /// Home account ids whose username equals `username` case-insensitively.
    mutating func homeAccountIds(username: String) -> [String] {
        if usernameIndex == nil {
            var index: [String: [String]] = [:]
            for account in contents.accounts {
                index[account.username.lowercased(), default: []].append(account.homeAccountId)
            }
            usernameIndex = index
        }
        return usernameIndex?[username.lowercased()] ?? []
    }
}

/// An entity kind held in the store's buckets: where its array and origins are.
protocol StoredEntity: CacheEntity {
    static var kind: TokenStore.Kind { get }
    static var entities: WritableKeyPath<CacheContents, [Self]> { get }
    static var origins: WritableKeyPath<CacheContents, [EntryOrigin]> { get }
    var homeAccountId: String { get set }
    /// The secret, for the token kinds.
    var storedSecret: String? { get set }
}

extension CacheAccessToken: StoredEntity {
    static var kind: TokenStore.Kind { .accessToken }
    static var entities: WritableKeyPath<CacheContents, [Self]> { \.accessTokens }
    static var origins: WritableKeyPath<CacheContents, [EntryOrigin]> { \.origins.accessTokens }
    var storedSecret: String? {
        get { secret }
        set { secret = newValue ?? "" }
    }
}

extension CacheRefreshToken: StoredEntity {
    static var kind: TokenStore.Kind { .refreshToken }
    static var entities: WritableKeyPath<CacheContents, [Self]> { \.refreshTokens }
    static var origins: WritableKeyPath<CacheContents, [EntryOrigin]> { \.origins.refreshTokens }
    var storedSecret: String? {
        get { secret }
        set { secret = newValue ?? "" }
    }
}

extension CacheIdToken: StoredEntity {
    static var kind: TokenStore.Kind { .idToken }
    static var entities: WritableKeyPath<CacheContents, [Self]> { \.idTokens }
    static var origins: WritableKeyPath<CacheContents, [EntryOrigin]> { \.origins.idTokens }
    var storedSecret: String? {
        get { secret }
        set { secret = newValue ?? "" }
    }
}

extension CacheAccount: StoredEntity {
    static var kind: TokenStore.Kind { .account }
    static var entities: WritableKeyPath<CacheContents, [Self]> { \.accounts }
    static var origins: WritableKeyPath<CacheContents, [EntryOrigin]> { \.origins.accounts }
    var storedSecret: String? {
        get { nil }
        set {}
    }
}

extension TokenStore {
    /// Replaces the entity at `index` of its kind's array with `entity` (moving it to another
    /// account's bucket when its home account id differs) and forgets its origin: it is written
    /// from its fields next time. A token given with an empty secret keeps the secret it had.
    mutating func replace<Entity: StoredEntity>(at index: Int, with entity: Entity) {
        var entity = entity
        let ref = EntityRef(kind: Entity.kind, slot: Int32(index))
        let old = contents[keyPath: Entity.entities][index].homeAccountId
        if entity.storedSecret?.isEmpty == true, let secret = secret(Entity.kind, index) {
            entity.storedSecret = secret
        }
        if old == entity.homeAccountId {
            entity.homeAccountId = old
        } else {
            unlink(ref, old)
            entity.homeAccountId = link(ref, entity.homeAccountId)
        }
        if Entity.kind == .account { usernameIndex = nil }
        contents[keyPath: Entity.entities][index] = entity
        contents[keyPath: Entity.origins][index] = .none
    }

    /// Replaces the app metadata at `index` and forgets its origin.
    mutating func replace(appMetadataAt index: Int, with metadata: CacheAppMetadata) {
        let old = contents.appMetadata[index]
        appIndex[AppKey(environment: old.environment, clientId: old.clientId)] = nil
        appIndex[AppKey(environment: metadata.environment, clientId: metadata.clientId)] = index
        contents.appMetadata[index] = metadata
        contents.origins.appMetadata[index] = .none
    }
}

/// Each member name once in every section: entries that would share a key are settled in the
/// store, so that what it holds in memory is what a save writes.
extension TokenStore {
    /// One claim on a key: an entity's slot or a kept entry's index, and its origin.
    private enum Claimant: Hashable {
        case entity(Int)
        case kept(Int)
    }

    /// Drops, of every set of entries that would be written under one key, all but the one
    /// ``KeyClaim`` keeps, with a warning. `atLoad`: the entries are as read, in document order,
    /// and the later one stays; otherwise before a save, where a section none of whose entities
    /// changed since the last settling is not looked at again.
    mutating func dropKeyClashes(atLoad: Bool) {
        var builder = CacheKeyBuilder()
        settle(.accessToken, \.accessTokens, \.origins.accessTokens, .accessToken, atLoad, &builder)
        settle(.refreshToken, \.refreshTokens, \.origins.refreshTokens, .refreshToken, atLoad, &builder)
        settle(.idToken, \.idTokens, \.origins.idTokens, .idToken, atLoad, &builder)
        settle(.account, \.accounts, \.origins.accounts, .account, atLoad, &builder)
        settle(.appMetadata, \.appMetadata, \.origins.appMetadata, nil, atLoad, &builder)
        if let kept = contents.keptEntries[.accountMetadata], kept.count > 1 {
            contents.keptEntries[.accountMetadata] = Self.laterOfEach(kept, .accountMetadata)
        }
        for (client, records) in contents.accountMetadataKept where records.count > 1 {
            contents.accountMetadataKept[client] = Self.laterOfEach(records, .accountMetadata)
        }
    }

    /// Settles the keys of one section of entities (`kind` `nil`: app metadata) and its kept entries.
    private mutating func settle<Entity: CacheEntity>(
        _ section: CacheSection, _ entities: WritableKeyPath<CacheContents, [Entity]>,
        _ origins: WritableKeyPath<CacheContents, [EntryOrigin]>, _ kind: Kind?, _ atLoad: Bool,
        _ builder: inout CacheKeyBuilder
    ) {
        let kept = contents.keptEntries[section] ?? []
        let all = contents[keyPath: entities]
        let places = contents[keyPath: origins]
        guard all.count + kept.count > 1 else { return }
        if !atLoad && !all.indices.contains(where: { places[originAt: $0].entry == nil }) { return }
        let losers = Self.losers(all, places, kept, atLoad: atLoad, &builder)
        guard !losers.isEmpty else { return }
        var lostEntities: [Int] = []
        var lostKept = Set<Int>()
        for loser in losers {
            switch loser {
            case .entity(let slot): lostEntities.append(slot)
            case .kept(let index): lostKept.insert(index)
            }
        }
        Log.warning(
            "Token cache: \(losers.count) \(section.name) entries shared their key with a newer one and are dropped.")
        if !lostKept.isEmpty {
            contents.keptEntries[section] = kept.indices.filter { !lostKept.contains($0) }.map { kept[$0] }
        }
        // Highest slot first, so swapping the last entity in never moves a pending loser.
        for slot in lostEntities.sorted(by: >) {
            if atLoad {
                // Not indexed yet: removed in place, keeping the document's order.
                contents[keyPath: entities].remove(at: slot)
                if slot < contents[keyPath: origins].count { contents[keyPath: origins].remove(at: slot) }
                for index in contents.keptEntries[section]?.indices ?? (0..<0)
                where contents.keptEntries[section]![index].entitiesBefore > slot {
                    contents.keptEntries[section]![index].entitiesBefore -= 1
                }
            } else if let kind {
                remove(EntityRef(kind: kind, slot: Int32(slot)))
            } else {
                removeAppMetadata(at: slot)
            }
        }
    }

    /// The claimants that lose their key: entities and kept entries in document order at load
    /// (a kept entry after the entities read before it), else the entities, then the kept entries.
    private static func losers<Entity: CacheEntity>(
        _ entities: [Entity], _ origins: [EntryOrigin], _ kept: [KeptEntry], atLoad: Bool,
        _ builder: inout CacheKeyBuilder
    ) -> [Claimant] {
        func load(_ claimant: Claimant) {
            switch claimant {
            case .entity(let slot):
                if let key = entities[slot].originalKey { builder.set(key) } else { entities[slot].buildKey(&builder) }
            case .kept(let index): builder.set(kept[index].key)
            }
        }
        func origin(_ claimant: Claimant) -> KeyClaim.Origin {
            guard !atLoad, case .entity(let slot) = claimant, origins[originAt: slot].entry == nil else {
                return .unchanged
            }
            return .changed
        }
        var holders: [Int: Claimant] = [:]
        holders.reserveCapacity(entities.count + kept.count)
        // Keys of another key's hash (almost never any), by key.
        var clashes: [String: Claimant] = [:]
        var losers: [Claimant] = []
        func claim(_ claimant: Claimant) {
            let hash: Int
            if case .entity(let slot) = claimant, let read = origins[originAt: slot].keyHash {
                hash = read
            } else {
                load(claimant)
                hash = builder.keyHash
            }
            guard let holder = holders[hash] else {
                holders[hash] = claimant
                return
            }
            load(claimant)
            let key = builder.string
            load(holder)
            func contest(_ earlier: Claimant) -> Claimant {
                let keepsLater = KeyClaim.winner(earlier: origin(earlier), later: origin(claimant)) == .later
                losers.append(keepsLater ? earlier : claimant)
                return keepsLater ? claimant : earlier
            }
            if builder.string == key {
                holders[hash] = contest(holder)
            } else if let earlier = clashes[key] {
                clashes[key] = contest(earlier)
            } else {
                clashes[key] = claimant
            }
        }
        var next = 0
        for slot in entities.indices {
            while atLoad, next < kept.count, kept[next].entitiesBefore <= slot {
                claim(.kept(next))
                next += 1
            }
            claim(.entity(slot))
        }
        while next < kept.count {
            claim(.kept(next))
            next += 1
        }
        return losers
    }

    /// The entries of `kept` but those a later one has the key of.
    private static func laterOfEach(_ kept: [KeptEntry], _ section: CacheSection) -> [KeptEntry] {
        var last: [String: Int] = [:]
        for index in kept.indices { last[kept[index].key] = index }
        guard last.count < kept.count else { return kept }
        Log.warning(
            "Token cache: \(kept.count - last.count) \(section.name) entries shared their key with a later one and are dropped."
        )
        return kept.indices.filter { last[kept[$0].key] == $0 }.map { kept[$0] }
    }
}
