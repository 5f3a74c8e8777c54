/// App metadata of the unified cache schema: one per environment and client, recording whether
/// the client is in a family (`family_id` `"1"`), not or no longer in one (`""`), or unknown (`nil`).
struct CacheAppMetadata: Sendable, Equatable {
    var clientId: String { didSet { source.place = nil } }
    var environment: String { didSet { source.place = nil } }
    var familyId: String? { didSet { source.place = nil } }
    var unknown: UnknownFields = .none { didSet { source.place = nil } }
    var originalKey: String? { didSet { source.place = nil } }
    /// Where the entry is in the cache file while the entity is unchanged; see ``CacheEntrySource``.
    var source = CacheEntrySource()
}
