/// The silent path's lookups: each finds the account's keys in the index (one hash of the home
/// account id) and looks at that account's few entries, trying the environment aliases in order.
extension TokenStore {
    /// The access token of the account for `realm` and `clientId` whose target contains every
    /// scope in `scopes` (**already lowercased**, ``lowercasedScopes(_:)``), trying `environments`
    /// in order; of several, the one that expires last.
    package func accessToken(
        homeAccountId: String, environments: [String], realm: String, clientId: String, scopes: [String],
        tokenType: String? = nil
    ) -> CacheAccessToken? {
        let wantedType = tokenType.map(CacheScopes.normalizedTokenType)
        return best(CacheAccessToken.self, of: homeAccountId, environments) { token in
            token.clientId == clientId && token.realm == realm && CacheScopes.target(token.target, contains: scopes)
                && (wantedType.map { CacheScopes.normalizedTokenType(token.tokenType) == $0 } ?? true)
        } by: {
            ($0.expiresOn ?? 0) < ($1.expiresOn ?? 0)
        }
    }

    /// The token for `resource` of the account (``CacheResourceToken``), chosen as
    /// ``accessToken(homeAccountId:environments:realm:clientId:scopes:tokenType:)`` chooses.
    func resourceAccessToken(
        homeAccountId: String, environments: [String], realm: String, clientId: String, scopes: [String],
        resource: String
    ) -> CacheAccessToken? {
        best(CacheResourceToken.self, of: homeAccountId, environments) {
            $0.resource == resource && $0.token.clientId == clientId && $0.token.realm == realm
                && CacheScopes.target($0.token.target, contains: scopes)
        } by: {
            ($0.token.expiresOn ?? 0) < ($1.token.expiresOn ?? 0)
        }?.token
    }

    /// Of the account's entities of `type` that `matches` selects, those of the first
    /// environment of `environments` that has any; of these the greatest by `isLess` (the first
    /// of equals).
    private func best<Entity: StoredEntity>(
        _ type: Entity.Type, of homeAccountId: String, _ environments: [String], where matches: (Entity) -> Bool,
        by isLess: (Entity, Entity) -> Bool = { _, _ in false }
    ) -> Entity? {
        var best: (rank: Int, entity: Entity)?
        forEach(type, of: homeAccountId) { _, entity in
            guard let rank = environments.firstIndex(of: entity.environment), matches(entity) else { return }
            if let current = best, current.rank < rank || (current.rank == rank && !isLess(current.entity, entity)) {
                return
            }
            best = (rank, entity)
        }
        return best?.entity
    }

    /// Requested scopes in the form ``accessToken(homeAccountId:environments:realm:clientId:scopes:tokenType:)`` wants.
    package static func lowercasedScopes(_ scopes: [String]) -> [String] {
        scopes.map { $0.lowercased() }.filter { !$0.isEmpty }
    }

    /// The app's refresh token for the account, the newest.
    func refreshToken(homeAccountId: String, environments: [String], clientId: String) -> CacheRefreshToken? {
        best(CacheRefreshToken.self, of: homeAccountId, environments) {
            $0.clientId == clientId
        } by: {
            $0.modificationSeconds < $1.modificationSeconds
        }
    }

    /// A refresh token of the account's whose `family_id` is `familyId` (whichever family client
    /// stored it), the newest.
    func familyRefreshToken(homeAccountId: String, environments: [String], familyId: String) -> CacheRefreshToken? {
        familyId.isEmpty
            ? nil
            : best(CacheRefreshToken.self, of: homeAccountId, environments) {
                $0.familyId == familyId
            } by: {
                $0.modificationSeconds < $1.modificationSeconds
            }
    }

    package func idToken(homeAccountId: String, environments: [String], realm: String, clientId: String)
        -> CacheIdToken?
    {
        best(CacheIdToken.self, of: homeAccountId, environments) { $0.realm == realm && $0.clientId == clientId }
    }

    package func account(homeAccountId: String, environments: [String], realm: String) -> CacheAccount? {
        best(CacheAccount.self, of: homeAccountId, environments) { $0.realm == realm }
    }

    /// All account records (tenant profiles) of a home account, in any environment, by key.
    func accountRecords(homeAccountId: String) -> [CacheAccount] {
        var records = entities(CacheAccount.self, of: homeAccountId)
        if records.count > 1 { records.sort { $0.key < $1.key } }
        return records.map(\.entity)
    }

    func appMetadata(environments: [String], clientId: String) -> CacheAppMetadata? {
        best(CacheAppMetadata.self, of: "", environments) { $0.clientId == clientId }
    }

    /// The family to look family refresh tokens up in: the app metadata's `family_id` when app
    /// metadata exists (empty: none), else `"1"`; in `environments`, or any cloud when `nil`.
    func familyId(environments: [String]? = nil, clientId: String) -> String {
        let metadata =
            environments.map { appMetadata(environments: $0, clientId: clientId) }
            ?? appMetadata.values.first { $0.clientId == clientId }
        return metadata.map { $0.familyId ?? "" } ?? "1"
    }

    func signInState(clientId: String, homeAccountId: String) -> SignInState {
        accountMetadata(clientId: clientId, homeAccountId: homeAccountId)?.signInState ?? .unknown
    }

    /// Home account ids whose username equals `username` case-insensitively.
    func homeAccountIds(username: String) -> [String] {
        let wanted = username.lowercased()
        return Array(Set(accounts.values.filter { $0.username.lowercased() == wanted }.map(\.homeAccountId))).sorted()
    }
}
