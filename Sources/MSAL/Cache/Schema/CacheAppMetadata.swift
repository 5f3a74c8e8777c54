/// App metadata of the unified cache schema: one per environment and client, recording whether
/// the client is in a family (`family_id` `"1"`), not or no longer in one (`""`), or unknown (`nil`).
struct CacheAppMetadata: Sendable, Equatable {
    var clientId = ""
    var environment = ""
    var familyId: String? = nil
    var unknown: UnknownFields = .none
    var originalKey: String? = nil
}
