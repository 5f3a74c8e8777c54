/// Access tokens asked for with an RFC 8707 resource indicator.
///
/// Such a token is for one resource (its audience), whatever its scopes say, so it is never kept
/// in the `AccessToken` section: MSAL for Python, MSAL.NET and others look there by scopes alone
/// and would hand it to a request for another resource. It is kept in a top-level section of
/// this library's own, `MSALResourceAccessToken`, which other libraries keep as it is:
///
///     "MSALResourceAccessToken": {
///       "<access token key>-<resource>": {
///         "home_account_id": ..., "environment": ..., "credential_type": "AccessToken",
///         "client_id": ..., "realm": ..., "target": ..., "secret": ..., "token_type": ...,
///         "cached_at": "...", "expires_on": "...", "extended_expires_on": "...",
///         "refresh_on": "...", "resource": "https://mcp.example.com/mcp"
///       }
///     }
///
/// The key is the `AccessToken` key (lowercased) followed by the resource as given: two resources
/// never share an entry. An entry of the section that is not such an object is kept as it is; a
/// section that is not an object is left alone and nothing is cached in it.
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
        let key =
            [record.homeAccountId, record.environment, "accesstoken", record.clientId, record.realm, target]
            .joined(separator: "-").lowercased() + "-" + resource
        var entry: [String: JSONValue] = [
            "home_account_id": .string(record.homeAccountId), "environment": .string(record.environment),
            "credential_type": "AccessToken", "client_id": .string(record.clientId), "realm": .string(record.realm),
            "target": .string(target), "secret": .string(secret), "cached_at": .string(String(record.cachedAt)),
            "expires_on": .string(String(record.expiresOn)),
            "extended_expires_on": .string(String(record.extendedExpiresOn ?? record.expiresOn)),
            "resource": .string(resource),
        ]
        if let tokenType = record.tokenType { entry["token_type"] = .string(tokenType) }
        if let refreshOn = record.refreshOn { entry["refresh_on"] = .string(String(refreshOn)) }
        entries[key] = .object(entry)
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
        guard let homeAccountId = value["home_account_id"]?.stringValue,
            let environment = value["environment"]?.stringValue, let clientId = value["client_id"]?.stringValue,
            let realm = value["realm"]?.stringValue, let target = value["target"]?.stringValue,
            let secret = value["secret"]?.stringValue, value["resource"]?.stringValue != nil
        else { return nil }
        func seconds(_ name: String) -> Int64? { value[name]?.stringValue.flatMap { Int64($0) } }
        return CacheAccessToken(
            homeAccountId: homeAccountId, environment: environment, clientId: clientId, realm: realm,
            target: target, secret: secret, tokenType: value["token_type"]?.stringValue,
            cachedAt: seconds("cached_at"), expiresOn: seconds("expires_on"),
            extendedExpiresOn: seconds("extended_expires_on"), refreshOn: seconds("refresh_on"))
    }
}
