import Foundation

/// The in-memory token cache: the entities in document order plus the indexes that make the
/// silent path cost the same with one account or a hundred thousand.
///
/// Every credential and account record is reachable from its home account's bucket (a short
/// list per account), so a lookup is one hash of the home account id and a scan of that
/// account's few entries. App metadata and account metadata have their own hash indexes.
/// Removal swaps the last entry into the hole, so it is O(1) too.
///
/// A value type without locking: ``TokenCache`` guards it.
struct TokenStore: Sendable {
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

    private(set) var contents: CacheContents
    private(set) var buckets = AccountBuckets()
    private var appIndex: [AppKey: Int] = [:]
    private var metadataIndex: [MetadataKey: Int] = [:]
    /// Lowercased username → home account ids; built on first use.
    private var usernameIndex: [String: [String]]?

    /// An empty cache.
    init() {
        contents = CacheContents()
    }

    /// A cache holding `contents` (as read from a document): indexes the entities where they
    /// are, and drops entries that duplicate another one's meaning (keeping the newer). With at
    /// least `twoThreadsFrom` entities, the two halves of the buckets are built on two threads.
    init(_ loaded: consuming CacheContents, twoThreadsFrom: Int = Self.indexTwoThreadsFrom) {
        let accountMetadata = loaded.accountMetadata
        loaded.accountMetadata = []
        let digests = loaded.homeAccountDigests
        loaded.homeAccountDigests = HomeAccountDigests()
        contents = consume loaded
        let capacity = (contents.accounts.count + contents.refreshTokens.count / 4) / 2 + 16
        let parallel = entityCount >= twoThreadsFrom
        var halves: [ShardIndexer.Half] = []
        // The arrays are moved out while their elements are indexed in place, and back after
        // (swapped out: a copy of an array and an assignment of an empty one would leave, for a
        // moment, two references to its buffer, and indexing in place would copy every entity).
        var accessTokens: [CacheAccessToken] = []
        var refreshTokens: [CacheRefreshToken] = []
        var idTokens: [CacheIdToken] = []
        var accounts: [CacheAccount] = []
        swap(&accessTokens, &contents.accessTokens)
        swap(&refreshTokens, &contents.refreshTokens)
        swap(&idTokens, &contents.idTokens)
        swap(&accounts, &contents.accounts)
        accessTokens.withUnsafeMutableBufferPointer { accessTokens in
            refreshTokens.withUnsafeMutableBufferPointer { refreshTokens in
                idTokens.withUnsafeMutableBufferPointer { idTokens in
                    accounts.withUnsafeMutableBufferPointer { accounts in
                        let entities = LoadedEntities(
                            accessTokens: accessTokens, refreshTokens: refreshTokens, idTokens: idTokens,
                            accounts: accounts, digests: digests)
                        defer { entities.deallocate() }
                        if parallel {
                            let (first, second) = alongside({
                                ShardIndexer.index(entities, shard: 1, capacity: capacity)
                            }) {
                                ShardIndexer.index(entities, shard: 0, capacity: capacity)
                            }
                            halves = [first, second]
                        } else {
                            halves = (0..<2).map { ShardIndexer.index(entities, shard: $0, capacity: capacity) }
                        }
                    }
                }
            }
        }
        contents.accessTokens = accessTokens
        contents.refreshTokens = refreshTokens
        contents.idTokens = idTokens
        contents.accounts = accounts
        buckets = AccountBuckets(halves[0].buckets, halves[1].buckets)
        let losers = halves[0].losers.union(halves[1].losers)
        if parallel {
            // Tens of thousands of strings: freed off the caller's path.
            let replaced = (halves[0].replaced, halves[1].replaced)
            DispatchQueue.global(qos: .utility).async { withExtendedLifetime(replaced) {} }
        }
        halves = []
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

    /// After a save to `file`: the store reads its secrets from there and copies its entries from
    /// there on the next save (``CacheEntrySource``), so it holds no secret text and no longer
    /// keeps the previous file open. An entry whose bytes could not be checked while written is
    /// written from its fields again next time.
    mutating func place(in file: CacheFileSnapshot, _ placements: CacheDocumentWriter.Placements) {
        func place<Entity: CacheEntity>(_ entities: inout [Entity], _ placed: [EntryPlacement]) {
            guard placed.count == entities.count else {
                for index in entities.indices { entities[index].source = CacheEntrySource() }
                return
            }
            for index in entities.indices {
                entities[index].source = CacheEntrySource(placed[index].entry)
            }
        }
        func placeSecrets<Token: CacheSecretHolder & CacheEntity>(_ tokens: inout [Token], _ placed: [EntryPlacement]) {
            guard placed.count == tokens.count else { return place(&tokens, placed) }
            for index in tokens.indices {
                let placement = placed[index]
                if let secret = placement.secret, secret.isKeptInFile {
                    // Assigned first: a new secret value forgets the entry's place.
                    tokens[index].secretValue = CacheSecret(
                        CacheFileRange(
                            file: file, offset: secret.offset, length: Int32(secret.length), escaped: secret.escaped,
                            check: secret.check))
                }
                tokens[index].source = CacheEntrySource(placement.entry)
            }
        }
        placeSecrets(&contents.accessTokens, placements.accessTokens)
        placeSecrets(&contents.refreshTokens, placements.refreshTokens)
        placeSecrets(&contents.idTokens, placements.idTokens)
        place(&contents.accounts, placements.accounts)
        place(&contents.appMetadata, placements.appMetadata)
        contents.sourceFile = file
    }

    /// For tests: changes entities' fields in place. The indexes are not updated, so `body` must
    /// not change what they are built from (home account ids, environments, realms, clients).
    mutating func mutateForTests(_ body: (inout CacheContents) -> Void) {
        body(&contents)
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
    private mutating func link(_ ref: EntityRef, _ homeAccountId: String) -> String {
        if let shared = buckets.append(ref, toBucketOf: homeAccountId) { return shared }
        var refs = [ref]
        refs.reserveCapacity(Self.bucketCapacity)
        buckets[homeAccountId] = Bucket(homeAccountId: homeAccountId, refs: refs)
        return homeAccountId
    }

    /// Room made in a new bucket: an account's access, refresh and id tokens and its record.
    static let bucketCapacity = 4

    /// Stores with this many entities or more are indexed on two threads when loaded.
    static let indexTwoThreadsFrom = 4_000

    private mutating func unlink(_ ref: EntityRef, _ homeAccountId: String) {
        guard var bucket = buckets.removeValue(forKey: homeAccountId) else { return }
        if let position = bucket.refs.firstIndex(of: ref) { bucket.refs.remove(at: position) }
        if !bucket.refs.isEmpty { buckets[homeAccountId] = bucket }
    }

    private mutating func relink(_ old: EntityRef, to new: EntityRef, _ homeAccountId: String) {
        guard let position = buckets[homeAccountId]?.refs.firstIndex(of: old) else { return }
        buckets[homeAccountId]!.refs[position] = new
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
            return
        }
        var token = token
        token.homeAccountId = link(
            EntityRef(kind: .accessToken, slot: Int32(contents.accessTokens.count)), token.homeAccountId)
        contents.accessTokens.append(token)
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
            return
        }
        var token = token
        token.homeAccountId = link(EntityRef(kind: .idToken, slot: Int32(contents.idTokens.count)), token.homeAccountId)
        contents.idTokens.append(token)
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
            return
        }
        var account = account
        account.homeAccountId = link(
            EntityRef(kind: .account, slot: Int32(contents.accounts.count)), account.homeAccountId)
        if usernameIndex != nil {
            usernameIndex![account.username.lowercased(), default: []].append(account.homeAccountId)
        }
        contents.accounts.append(account)
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
            return
        }
        appIndex[key] = contents.appMetadata.count
        contents.appMetadata.append(metadata)
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

    /// Removes the entity at `ref` (swapping the last entity of its kind into its place).
    mutating func remove(_ ref: EntityRef) {
        let slot = Int(ref.slot)
        let owners: (removed: String, moved: String?)
        switch ref.kind {
        case .accessToken: owners = Self.swapRemove(slot, &contents.accessTokens) { $0.homeAccountId }
        case .refreshToken: owners = Self.swapRemove(slot, &contents.refreshTokens) { $0.homeAccountId }
        case .idToken: owners = Self.swapRemove(slot, &contents.idTokens) { $0.homeAccountId }
        case .account:
            usernameIndex = nil
            owners = Self.swapRemove(slot, &contents.accounts) { $0.homeAccountId }
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

    /// Removes `list[slot]` by moving the last element into it; returns the removed entity's
    /// owner and, when an element moved, the moved one's owner.
    private static func swapRemove<Entity>(
        _ slot: Int, _ list: inout [Entity], _ owner: (Entity) -> String
    ) -> (removed: String, moved: String?) {
        let removed = owner(list[slot])
        let last = list.count - 1
        guard slot != last else {
            list.removeLast()
            return (removed, nil)
        }
        let moved = owner(list[last])
        list.swapAt(slot, last)
        list.removeLast()
        return (removed, moved)
    }

    mutating func removeAppMetadata(at index: Int) {
        let removed = contents.appMetadata[index]
        appIndex[AppKey(environment: removed.environment, clientId: removed.clientId)] = nil
        let last = contents.appMetadata.count - 1
        if index != last {
            let moved = contents.appMetadata[last]
            contents.appMetadata.swapAt(index, last)
            appIndex[AppKey(environment: moved.environment, clientId: moved.clientId)] = index
        }
        contents.appMetadata.removeLast()
    }

    /// Removes everything this library models; unknown sections stay.
    mutating func removeAllEntities() {
        let unknownSections = contents.unknownSections
        self = TokenStore()
        contents.unknownSections = unknownSections
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
