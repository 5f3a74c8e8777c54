/// The store's buckets by home account id, kept in two halves chosen by a digest of the id, so
/// that the buckets of a large cache are built on two threads at once (``ShardIndexer``).
struct AccountBuckets: Sendable {
    typealias Shard = BucketTable

    private var first: Shard
    private var second: Shard

    init(_ first: Shard = Shard(), _ second: Shard = Shard()) {
        self.first = first
        self.second = second
    }

    /// A multiply-fold of the id's bytes, eight at a time. Not a defence against chosen
    /// collisions (``BucketTable`` mixes it with a seed per process); only whoever can write the
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

    /// Runs `body` on the half that holds the bucket of the id with `digest`.
    private mutating func withShard<Result>(of digest: UInt64, _ body: (inout Shard) -> Result) -> Result {
        Self.shard(of: digest) == 0 ? body(&first) : body(&second)
    }

    subscript(id: String) -> TokenStore.Bucket? {
        get {
            let digest = Self.digest(of: id)
            // The half is passed to a function, not chosen into a variable (which would retain
            // its three arrays on the silent path).
            func bucket(in shard: Shard) -> TokenStore.Bucket? {
                shard.position(of: id, digest: digest).map { shard[position: $0] }
            }
            return Self.shard(of: digest) == 0 ? bucket(in: first) : bucket(in: second)
        }
        set {
            let digest = Self.digest(of: id)
            withShard(of: digest) { shard in
                switch (shard.position(of: id, digest: digest), newValue) {
                case (let position?, let bucket?): shard[position: position] = bucket
                case (let position?, nil): shard.remove(at: position)
                case (nil, let bucket?): shard.insert(bucket, digest: digest)
                case (nil, nil): break
                }
            }
        }
    }

    mutating func removeValue(forKey id: String) -> TokenStore.Bucket? {
        let digest = Self.digest(of: id)
        return withShard(of: digest) { shard in
            guard let position = shard.position(of: id, digest: digest) else { return nil }
            let bucket = shard[position: position]
            shard.remove(at: position)
            return bucket
        }
    }

    /// Appends `ref` to the bucket of `id` when there is one (one lookup); returns the bucket's
    /// shared id string, or `nil` when the account has no bucket.
    mutating func append(_ ref: TokenStore.EntityRef, toBucketOf id: String) -> String? {
        let digest = Self.digest(of: id)
        return withShard(of: digest) { shard in
            guard let position = shard.position(of: id, digest: digest) else { return nil }
            return shard[position: position].appending(ref)
        }
    }
}

/// Digests (``AccountBuckets/digest(of:)``) of the home account ids of a document's entities, in
/// the order of their arrays, found while the document is read (the id is at hand then). The
/// store uses them when it indexes what was read.
struct HomeAccountDigests: Sendable {
    var accessTokens: [UInt64] = []
    var refreshTokens: [UInt64] = []
    var idTokens: [UInt64] = []
    var accounts: [UInt64] = []

    /// Appends those of the document's part after this one.
    mutating func append(_ other: HomeAccountDigests) {
        accessTokens.append(contentsOf: other.accessTokens)
        refreshTokens.append(contentsOf: other.refreshTokens)
        idTokens.append(contentsOf: other.idTokens)
        accounts.append(contentsOf: other.accounts)
    }
}

/// The loaded entities of a store, by kind, with the digest of each one's home account id (which
/// tells the half of the buckets it belongs to), for the indexers of both halves.
///
/// @unchecked Sendable: each of the two ``ShardIndexer``s that share it reads and writes only the
/// entities of its own half, and writes only their home account ids.
struct LoadedEntities: @unchecked Sendable {
    let accessTokens: UnsafeMutableBufferPointer<CacheAccessToken>
    let refreshTokens: UnsafeMutableBufferPointer<CacheRefreshToken>
    let idTokens: UnsafeMutableBufferPointer<CacheIdToken>
    let accounts: UnsafeMutableBufferPointer<CacheAccount>
    /// ``AccountBuckets/digest(of:)`` of each entity's home account id: access tokens, refresh
    /// tokens, id tokens, then accounts. Owned by the caller (``deallocate()``).
    private let digests: UnsafeMutableBufferPointer<UInt64>

    /// The entities, with their digests as the reader found them, or found here when `known` does
    /// not have one for each entity.
    init(
        accessTokens: UnsafeMutableBufferPointer<CacheAccessToken>,
        refreshTokens: UnsafeMutableBufferPointer<CacheRefreshToken>,
        idTokens: UnsafeMutableBufferPointer<CacheIdToken>, accounts: UnsafeMutableBufferPointer<CacheAccount>,
        digests known: HomeAccountDigests
    ) {
        self.accessTokens = accessTokens
        self.refreshTokens = refreshTokens
        self.idTokens = idTokens
        self.accounts = accounts
        digests = .allocate(capacity: accessTokens.count + refreshTokens.count + idTokens.count + accounts.count)
        let complete =
            known.accessTokens.count == accessTokens.count && known.refreshTokens.count == refreshTokens.count
            && known.idTokens.count == idTokens.count && known.accounts.count == accounts.count
        let starts = starts
        func fill(_ known: [UInt64], at start: Int, count: Int, _ id: (Int) -> String) {
            if complete {
                _ = UnsafeMutableBufferPointer(rebasing: digests[start..<(start + count)]).initialize(from: known)
            } else {
                for slot in 0..<count {
                    (digests.baseAddress! + start + slot).initialize(to: AccountBuckets.digest(of: id(slot)))
                }
            }
        }
        // By slot, reading only the id: passing elements would copy whole entities.
        fill(known.accessTokens, at: 0, count: accessTokens.count) { accessTokens[$0].homeAccountId }
        fill(known.refreshTokens, at: starts.refreshTokens, count: refreshTokens.count) {
            refreshTokens[$0].homeAccountId
        }
        fill(known.idTokens, at: starts.idTokens, count: idTokens.count) { idTokens[$0].homeAccountId }
        fill(known.accounts, at: starts.accounts, count: accounts.count) { accounts[$0].homeAccountId }
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

    /// The digest of entity `slot` of `kind` when it belongs to half `shard`, else `nil`.
    func digest(_ kind: TokenStore.Kind, _ slot: Int, inHalf shard: Int) -> UInt64? {
        let starts = starts
        let digest: UInt64
        switch kind {
        case .accessToken: digest = digests[slot]
        case .refreshToken: digest = digests[starts.refreshTokens + slot]
        case .idToken: digest = digests[starts.idTokens + slot]
        case .account: digest = digests[starts.accounts + slot]
        }
        return AccountBuckets.shard(of: digest) == shard ? digest : nil
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

    /// The buckets of half `shard`, and the entries that lose to a duplicate.
    static func index(_ entities: LoadedEntities, shard: Int, capacity: Int) -> Half {
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
            guard let digest = entities.digest(.accessToken, slot, inHalf: shard) else { continue }
            let (shared, existing, isNew) = link(.accessToken, slot, accessTokens[slot].homeAccountId, digest, &buckets)
            {
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
            guard let digest = entities.digest(.refreshToken, slot, inHalf: shard) else { continue }
            let (shared, existing, isNew) = link(
                .refreshToken, slot, refreshTokens[slot].homeAccountId, digest, &buckets
            ) {
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
            guard let digest = entities.digest(.idToken, slot, inHalf: shard) else { continue }
            let (shared, existing, isNew) = link(.idToken, slot, idTokens[slot].homeAccountId, digest, &buckets) {
                idTokens[$0].environment == idTokens[slot].environment && idTokens[$0].realm == idTokens[slot].realm
                    && idTokens[$0].clientId == idTokens[slot].clientId
                    && !losers.contains(EntityRef(kind: .idToken, slot: Int32($0)))
            }
            if let existing { losers.insert(EntityRef(kind: .idToken, slot: Int32(existing))) }
            share(shared, &idTokens[slot], isNew: isNew)
        }
        let accounts = entities.accounts
        for slot in accounts.indices {
            guard let digest = entities.digest(.account, slot, inHalf: shard) else { continue }
            let (shared, existing, isNew) = link(.account, slot, accounts[slot].homeAccountId, digest, &buckets) {
                accounts[$0].environment == accounts[slot].environment && accounts[$0].realm == accounts[slot].realm
                    && !losers.contains(EntityRef(kind: .account, slot: Int32($0)))
            }
            if let existing { losers.insert(EntityRef(kind: .account, slot: Int32(existing))) }
            share(shared, &accounts[slot], isNew: isNew)
        }
        return Half(buckets: buckets, losers: losers, replaced: replaced)
    }

    /// Links entity `slot` of `kind` into the bucket of `id`, whose digest is `digest` (one
    /// lookup). Returns the bucket's shared id string, the first entity of `kind` already in the
    /// bucket that `isDuplicate` accepts, and whether the bucket is new (made with `id` itself).
    private static func link(
        _ kind: Kind, _ slot: Int, _ id: String, _ digest: UInt64, _ buckets: inout AccountBuckets.Shard,
        isDuplicate: (Int) -> Bool
    ) -> (shared: String, duplicate: Int?, isNew: Bool) {
        let ref = EntityRef(kind: kind, slot: Int32(slot))
        guard let position = buckets.position(of: id, digest: digest) else {
            var refs = [ref]
            refs.reserveCapacity(TokenStore.bucketCapacity)
            buckets.insert(TokenStore.Bucket(homeAccountId: id, refs: refs), digest: digest)
            return (id, nil, true)
        }
        var duplicate: Int?
        let shared = buckets[position: position].appending(ref) { refs in
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
