/// Access tokens asked for with an RFC 8707 resource indicator. Such a token is for one resource,
/// whatever its scopes say, so it is never kept in the `AccessToken` section (where every MSAL
/// looks by scopes alone) but in this library's own top-level section `MSALResourceAccessToken`,
/// which other libraries keep as it is: each an `AccessToken` entry plus `"resource"`, under the
/// access token's key followed by `-<resource>`. An entry that is not such a token is kept as it
/// is; a section that is not an object is left alone and nothing is cached in it.
extension TokenStore {
    /// The name of the section.
    static let resourceSectionName = "MSALResourceAccessToken"

    /// The section's members; `[:]` when there is none, `nil` when it is not a JSON object.
    private var resourceEntries: [String: JSONValue]? {
        guard let raw = unknownSection(named: Self.resourceSectionName) else { return [:] }
        return (try? JSONValue(parsing: raw))?.objectValue
    }

    /// The token for `resource` of the account, `realm` and `clientId` whose target holds every
    /// scope in `scopes` (already lowercased), trying `environments` in order; among several, the
    /// one that expires last.
    func resourceAccessToken(
        homeAccountId: String, environments: [String], realm: String, clientId: String, scopes: [String],
        resource: String
    ) -> CacheAccessToken? {
        let candidates = (resourceEntries ?? [:]).values.compactMap { value -> CacheAccessToken? in
            guard value["resource"]?.stringValue == resource, let token = Self.resourceToken(value),
                token.homeAccountId == homeAccountId, token.clientId == clientId, token.realm == realm,
                CacheScopes.target(token.target, contains: scopes)
            else { return nil }
            return token
        }
        for environment in environments {
            let here = candidates.filter { $0.environment == environment }
            if let best = here.max(by: { ($0.expiresOn ?? 0) < ($1.expiresOn ?? 0) }) { return best }
        }
        return nil
    }

    /// Keeps the access token of `record` for `record.resource`, replacing the account's tokens
    /// for that resource whose scopes intersect its own, and dropping the section's expired tokens.
    mutating func saveResourceAccessToken(_ record: TokenResponseRecord, secret: String) {
        guard let resource = record.resource else { return }
        guard var entries = resourceEntries else {
            Log.warning("The cache's \(Self.resourceSectionName) section is not an object; the token is not cached")
            return
        }
        let target = CacheScopes.target(record.scopes)
        let lowercased = target.split(separator: " ").map { $0.lowercased() }
        let type = CacheScopes.normalizedTokenType(record.tokenType)
        entries = entries.filter { _, value in
            guard let token = Self.resourceToken(value) else { return true }  // not ours to judge
            if (token.expiresOn ?? 0) <= record.cachedAt { return false }
            let sameSlot =
                value["resource"]?.stringValue == resource && token.homeAccountId == record.homeAccountId
                && token.environment == record.environment && token.realm == record.realm
                && token.clientId == record.clientId && CacheScopes.normalizedTokenType(token.tokenType) == type
            return !(sameSlot && CacheScopes.intersects(token.target, lowercased: lowercased))
        }
        var token = CacheAccessToken(
            homeAccountId: record.homeAccountId, environment: record.environment, clientId: record.clientId,
            realm: record.realm, target: target, secret: secret, tokenType: record.tokenType,
            cachedAt: record.cachedAt, expiresOn: record.expiresOn,
            extendedExpiresOn: record.extendedExpiresOn ?? record.expiresOn, refreshOn: record.refreshOn)
        token.unknown.append(rawName: #""resource""#, rawValue: JSONValue.string(resource).serializedString())
        entries[token.key + "-" + resource] = CacheDocument.json(of: token)
        setUnknownSection(named: Self.resourceSectionName, rawValue: JSONValue.object(entries).serializedString())
    }

    /// Removes the section's tokens that `predicate` selects; the section goes when it is left
    /// empty. Entries that are not tokens stay.
    mutating func removeResourceAccessTokens(where predicate: (CacheAccessToken) -> Bool) {
        guard let entries = resourceEntries, !entries.isEmpty else { return }
        let kept = entries.filter { _, value in Self.resourceToken(value).map { !predicate($0) } ?? true }
        guard kept.count != entries.count else { return }
        setUnknownSection(
            named: Self.resourceSectionName, rawValue: kept.isEmpty ? nil : JSONValue.object(kept).serializedString())
    }

    /// An entry of the section as a token; `nil` when it lacks what a token needs.
    private static func resourceToken(_ value: JSONValue) -> CacheAccessToken? {
        value["resource"]?.stringValue == nil ? nil : CacheDocument.entity(CacheAccessToken.self, from: value)
    }
}
