import Dispatch

/// The store's buckets by home account id, kept in two halves chosen by a digest of the id, so
/// that the buckets of a large cache are built on two threads at once (``ShardIndexer``).
struct AccountBuckets: Sendable {
    typealias Shard = [Key: TokenStore.Bucket]

    /// A home account id with its ``digest(of:)``, which is what the dictionaries hash: the
    /// digest is found once per entity while loading, and hashing eight bytes costs less than
    /// hashing an id of seventy.
    struct Key: Hashable, Sendable {
        let id: String
        let digest: UInt64

        init(_ id: String) {
            self.init(id, digest: AccountBuckets.digest(of: id))
        }

        init(_ id: String, digest: UInt64) {
            self.id = id
            self.digest = digest
        }

        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.digest == rhs.digest && lhs.id == rhs.id
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(digest)
        }
    }

    private var first: Shard
    private var second: Shard

    init(_ first: Shard = [:], _ second: Shard = [:]) {
        self.first = first
        self.second = second
    }

    /// A multiply-fold of the id's bytes, eight at a time. Not a defence against chosen
    /// collisions (the process's seeded `Hasher` still mixes it); only whoever can write the
    /// cache file chooses ids, and colliding ids cost comparisons, never a wrong answer.
    static func digest(of id: String) -> UInt64 {
        id.withUTF8Bytes { bytes in
            var folded = UInt64(bytes.count)
            var index = 0
            if let base = bytes.baseAddress {
                let raw = UnsafeRawPointer(base)
                while index + 8 <= bytes.count {
                    folded =
                        (folded ^ raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) &* 0x9E37_79B9_7F4A_7C15
                    index += 8
                }
                while index < bytes.count {
                    folded = (folded ^ UInt64(base[index])) &* 0x100_0000_01B3
                    index += 1
                }
            }
            return folded ^ (folded >> 29)
        }
    }

    /// Which half holds the bucket of the id with `digest`.
    static func shard(of digest: UInt64) -> Int {
        Int(truncatingIfNeeded: digest >> 63)
    }

    subscript(id: String) -> TokenStore.Bucket? {
        get {
            let key = Key(id)
            return Self.shard(of: key.digest) == 0 ? first[key] : second[key]
        }
        set {
            let key = Key(id)
            if Self.shard(of: key.digest) == 0 { first[key] = newValue } else { second[key] = newValue }
        }
    }

    mutating func removeValue(forKey id: String) -> TokenStore.Bucket? {
        let key = Key(id)
        return Self.shard(of: key.digest) == 0 ? first.removeValue(forKey: key) : second.removeValue(forKey: key)
    }

    /// Appends `ref` to the bucket of `id` when there is one (one lookup); returns the bucket's
    /// shared id string, or `nil` when the account has no bucket.
    mutating func append(_ ref: TokenStore.EntityRef, toBucketOf id: String) -> String? {
        let key = Key(id)
        func append(_ shard: inout Shard) -> String? {
            guard let position = shard.index(forKey: key) else { return nil }
            return shard.values[position].appending(ref)
        }
        return Self.shard(of: key.digest) == 0 ? append(&first) : append(&second)
    }
}

/// The loaded entities of a store, by kind, with the digest of each one's home account id (which
/// tells the half of the buckets it belongs to), for the indexers of both halves.
///
/// @unchecked Sendable: each of the two ``ShardIndexer``s that share it first finds the digests of
/// its own share of the slots (``findDigests(part:of:)``), then, after a ``Barrier``, reads and
/// writes only the entities of its own half, and writes only their home account ids.
struct LoadedEntities: @unchecked Sendable {
    let accessTokens: UnsafeMutableBufferPointer<CacheAccessToken>
    let refreshTokens: UnsafeMutableBufferPointer<CacheRefreshToken>
    let idTokens: UnsafeMutableBufferPointer<CacheIdToken>
    let accounts: UnsafeMutableBufferPointer<CacheAccount>
    /// ``AccountBuckets/digest(of:)`` of each entity's home account id: access tokens, refresh
    /// tokens, id tokens, then accounts. Owned by the caller (``deallocate()``).
    private let digests: UnsafeMutableBufferPointer<UInt64>

    init(
        accessTokens: UnsafeMutableBufferPointer<CacheAccessToken>,
        refreshTokens: UnsafeMutableBufferPointer<CacheRefreshToken>,
        idTokens: UnsafeMutableBufferPointer<CacheIdToken>, accounts: UnsafeMutableBufferPointer<CacheAccount>
    ) {
        self.accessTokens = accessTokens
        self.refreshTokens = refreshTokens
        self.idTokens = idTokens
        self.accounts = accounts
        digests = .allocate(capacity: accessTokens.count + refreshTokens.count + idTokens.count + accounts.count)
        digests.initialize(repeating: 0)
    }

    func deallocate() {
        digests.deallocate()
    }

    /// Where each kind's digests start in ``digests``.
    private var starts: (refreshTokens: Int, idTokens: Int, accounts: Int) {
        let refreshTokens = accessTokens.count
        let idTokens = refreshTokens + self.refreshTokens.count
        return (refreshTokens, idTokens, idTokens + self.idTokens.count)
    }

    /// Finds the digests of share `part` of `parts` of every kind's slots.
    func findDigests(part: Int, of parts: Int) {
        func find(count: Int, at start: Int, _ id: (Int) -> String) {
            for slot in (count * part / parts)..<(count * (part + 1) / parts) {
                digests[start + slot] = AccountBuckets.digest(of: id(slot))
            }
        }
        let starts = starts
        // By slot, reading only the id: passing elements would copy whole entities.
        find(count: accessTokens.count, at: 0) { accessTokens[$0].homeAccountId }
        find(count: refreshTokens.count, at: starts.refreshTokens) { refreshTokens[$0].homeAccountId }
        find(count: idTokens.count, at: starts.idTokens) { idTokens[$0].homeAccountId }
        find(count: accounts.count, at: starts.accounts) { accounts[$0].homeAccountId }
    }

    /// The bucket key of entity `slot` of `kind` when it belongs to half `shard`, else `nil`.
    func key(_ kind: TokenStore.Kind, _ slot: Int, inHalf shard: Int) -> AccountBuckets.Key? {
        let starts = starts
        let digest: UInt64
        switch kind {
        case .accessToken: digest = digests[slot]
        case .refreshToken: digest = digests[starts.refreshTokens + slot]
        case .idToken: digest = digests[starts.idTokens + slot]
        case .account: digest = digests[starts.accounts + slot]
        }
        guard AccountBuckets.shard(of: digest) == shard else { return nil }
        switch kind {
        case .accessToken: return AccountBuckets.Key(accessTokens[slot].homeAccountId, digest: digest)
        case .refreshToken: return AccountBuckets.Key(refreshTokens[slot].homeAccountId, digest: digest)
        case .idToken: return AccountBuckets.Key(idTokens[slot].homeAccountId, digest: digest)
        case .account: return AccountBuckets.Key(accounts[slot].homeAccountId, digest: digest)
        }
    }

    /// Two indexers wait here for each other to have found their share of the digests.
    final class Barrier: Sendable {
        private let arrived = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))

        /// Says that `part` (0 or 1) is done and waits for the other.
        func arrive(_ part: Int) {
            (part == 0 ? arrived.0 : arrived.1).signal()
            (part == 0 ? arrived.1 : arrived.0).wait()
        }
    }
}

/// Builds one half of the buckets of a loaded store: links each entity of that half into its
/// account's bucket (sharing one id string per account), and finds entries that duplicate
/// another one's meaning. Every entity of an account is in the same half, and each half is
/// indexed in the order of the whole, so the halves together are what one pass would build.
enum ShardIndexer {
    typealias Kind = TokenStore.Kind
    typealias EntityRef = TokenStore.EntityRef

    /// What indexing a half gives.
    struct Half: Sendable {
        var buckets: AccountBuckets.Shard
        /// The entries that lose to a duplicate (the older one), to be removed.
        var losers = Set<EntityRef>()
        /// The entities' own copies of their home account ids, replaced by their bucket's: freeing
        /// them is left to the caller (freeing memory another thread allocated is slow while
        /// another thread does the same).
        var replaced: [String] = []
    }

    /// The buckets of half `shard`, and the entries that lose to a duplicate. With `barrier`, the
    /// indexer of the other half runs at the same time: this one finds the halves of its share
    /// of the slots, then waits for the other to have found the rest.
    static func index(_ entities: LoadedEntities, shard: Int, capacity: Int, barrier: LoadedEntities.Barrier?)
        -> Half
    {
        if let barrier {
            entities.findDigests(part: shard, of: 2)
            barrier.arrive(shard)
        }
        var buckets = AccountBuckets.Shard(minimumCapacity: capacity)
        var losers = Set<EntityRef>()
        var replaced: [String] = []
        replaced.reserveCapacity(capacity * 3)
        /// Gives the entity the bucket's id string, keeping its own in `replaced`.
        func share<Entity: CacheAccountEntity>(_ shared: String, _ entity: inout Entity, isNew: Bool) {
            guard !isNew else { return }
            var own = shared
            entity.shareHomeAccountId(&own)
            replaced.append(own)
        }
        let accessTokens = entities.accessTokens
        for slot in accessTokens.indices {
            guard let key = entities.key(.accessToken, slot, inHalf: shard) else { continue }
            let (shared, existing, isNew) = link(.accessToken, slot, key, &buckets) {
                accessTokens[$0].isSameSlot(as: accessTokens[slot])
            }
            if let existing {
                let newer = (accessTokens[slot].cachedAt ?? 0) >= (accessTokens[existing].cachedAt ?? 0)
                losers.insert(EntityRef(kind: .accessToken, slot: Int32(newer ? existing : slot)))
            }
            share(shared, &accessTokens[slot], isNew: isNew)
        }
        let refreshTokens = entities.refreshTokens
        for slot in refreshTokens.indices {
            guard let key = entities.key(.refreshToken, slot, inHalf: shard) else { continue }
            let (shared, existing, isNew) = link(.refreshToken, slot, key, &buckets) {
                refreshTokens[$0].environment == refreshTokens[slot].environment
                    && refreshTokens[$0].clientId == refreshTokens[slot].clientId
                    && !losers.contains(EntityRef(kind: .refreshToken, slot: Int32($0)))
            }
            if let existing {
                let newer = refreshTokens[slot].modificationSeconds >= refreshTokens[existing].modificationSeconds
                losers.insert(EntityRef(kind: .refreshToken, slot: Int32(newer ? existing : slot)))
            }
            share(shared, &refreshTokens[slot], isNew: isNew)
        }
        let idTokens = entities.idTokens
        for slot in idTokens.indices {
            guard let key = entities.key(.idToken, slot, inHalf: shard) else { continue }
            let (shared, existing, isNew) = link(.idToken, slot, key, &buckets) {
                idTokens[$0].environment == idTokens[slot].environment && idTokens[$0].realm == idTokens[slot].realm
                    && idTokens[$0].clientId == idTokens[slot].clientId
                    && !losers.contains(EntityRef(kind: .idToken, slot: Int32($0)))
            }
            if let existing { losers.insert(EntityRef(kind: .idToken, slot: Int32(existing))) }
            share(shared, &idTokens[slot], isNew: isNew)
        }
        let accounts = entities.accounts
        for slot in accounts.indices {
            guard let key = entities.key(.account, slot, inHalf: shard) else { continue }
            let (shared, existing, isNew) = link(.account, slot, key, &buckets) {
                accounts[$0].environment == accounts[slot].environment && accounts[$0].realm == accounts[slot].realm
                    && !losers.contains(EntityRef(kind: .account, slot: Int32($0)))
            }
            if let existing { losers.insert(EntityRef(kind: .account, slot: Int32(existing))) }
            share(shared, &accounts[slot], isNew: isNew)
        }
        return Half(buckets: buckets, losers: losers, replaced: replaced)
    }

    /// Links entity `slot` of `kind` into the bucket of `key` (one lookup). Returns the bucket's
    /// shared id string, the first entity of `kind` already in the bucket that `isDuplicate`
    /// accepts, and whether the bucket is new (made with the key's id itself).
    private static func link(
        _ kind: Kind, _ slot: Int, _ key: AccountBuckets.Key, _ buckets: inout AccountBuckets.Shard,
        isDuplicate: (Int) -> Bool
    ) -> (shared: String, duplicate: Int?, isNew: Bool) {
        let ref = EntityRef(kind: kind, slot: Int32(slot))
        guard let position = buckets.index(forKey: key) else {
            var refs = [ref]
            refs.reserveCapacity(TokenStore.bucketCapacity)
            buckets[key] = TokenStore.Bucket(homeAccountId: key.id, refs: refs)
            return (key.id, nil, true)
        }
        var duplicate: Int?
        let shared = buckets.values[position].appending(ref) { refs in
            duplicate = refs.first { $0.kind == kind && isDuplicate(Int($0.slot)) }.map { Int($0.slot) }
        }
        return (shared, duplicate, false)
    }
}

extension TokenStore.Bucket {
    /// Appends `ref` in place (a bucket read through a dictionary's getter would be copied) and
    /// returns the bucket's shared id string; `before` sees the references already there.
    mutating func appending(_ ref: TokenStore.EntityRef, before: ([TokenStore.EntityRef]) -> Void = { _ in })
        -> String
    {
        before(refs)
        refs.append(ref)
        return homeAccountId
    }
}

/// An entity that belongs to a home account, whose id string the account's entities share.
protocol CacheAccountEntity {
    var homeAccountId: String { get set }
}

extension CacheAccountEntity {
    /// Exchanges the home account id's storage with `shared`, which holds the same id: the
    /// entities of an account then share one string. The entry's place is kept (the id's
    /// observer sees the same value).
    mutating func shareHomeAccountId(_ shared: inout String) {
        assert(shared == homeAccountId, "only the same id is shared")
        swap(&shared, &homeAccountId)
    }
}

extension CacheAccessToken: CacheAccountEntity {}
extension CacheRefreshToken: CacheAccountEntity {}
extension CacheIdToken: CacheAccountEntity {}
extension CacheAccount: CacheAccountEntity {}
