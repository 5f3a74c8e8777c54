/// The silent-path lookups: each hashes the home account id once and scans that account's few
/// entries, trying the environment aliases in order.
extension TokenStore {
    /// The access token of the account for `realm` and `clientId` whose target contains every
    /// scope in `scopes` (compared case-insensitively), trying `environments` in order. Among
    /// several, the one that expires last.
    ///
    /// - Parameter scopes: the requested scopes, **already lowercased** (see ``lowercasedScopes(_:)``).
    package func accessToken(
        homeAccountId: String, environments: [String], realm: String, clientId: String, scopes: [String],
        tokenType: String? = nil
    ) -> CacheAccessToken? {
        accessTokenIndex(
            homeAccountId: homeAccountId, environments: environments, realm: realm, clientId: clientId, scopes: scopes,
            tokenType: tokenType
        ).flatMap { accessToken(at: $0) }
    }

    /// Where in ``CacheContents/accessTokens`` the token ``accessToken(homeAccountId:environments:realm:clientId:scopes:tokenType:)``
    /// returns is (whether or not the file still holds its secret).
    func accessTokenIndex(
        homeAccountId: String, environments: [String], realm: String, clientId: String, scopes: [String],
        tokenType: String? = nil
    ) -> Int? {
        guard let bucket = buckets[homeAccountId] else { return nil }
        let wantedType = tokenType.map { CacheScopes.normalizedTokenType($0) }
        // Candidates are compared where they are stored (a field at a time), not copied out (a
        // copy retains and releases every field).
        for environment in environments {
            var best: Int?
            for ref in bucket.refs where ref.kind == .accessToken {
                let slot = Int(ref.slot)
                guard contents.accessTokens[slot].environment == environment,
                    contents.accessTokens[slot].clientId == clientId, contents.accessTokens[slot].realm == realm,
                    CacheScopes.target(contents.accessTokens[slot].target, contains: scopes)
                else { continue }
                if let wantedType,
                    CacheScopes.normalizedTokenType(contents.accessTokens[slot].tokenType) != wantedType
                {
                    continue
                }
                if let current = best,
                    (contents.accessTokens[slot].expiresOn ?? 0) <= (contents.accessTokens[current].expiresOn ?? 0)
                {
                    continue
                }
                best = slot
            }
            if let best { return best }
        }
        return nil
    }

    /// Requested scopes in the form ``accessToken(homeAccountId:environments:realm:clientId:scopes:tokenType:)`` wants.
    package static func lowercasedScopes(_ scopes: [String]) -> [String] {
        scopes.map { $0.lowercased() }.filter { !$0.isEmpty }
    }

    /// The app's refresh token for the account: `client_id` equal to `clientId`, newest first.
    func refreshToken(homeAccountId: String, environments: [String], clientId: String) -> CacheRefreshToken? {
        newestRefreshToken(homeAccountId, environments) { $0.clientId == clientId }
    }

    /// A family refresh token for the account: any refresh token whose `family_id` is `familyId`
    /// (from whichever family client stored it), the most recently modified first.
    func familyRefreshToken(homeAccountId: String, environments: [String], familyId: String) -> CacheRefreshToken? {
        guard !familyId.isEmpty else { return nil }
        return newestRefreshToken(homeAccountId, environments) { $0.familyId == familyId }
    }

    private func newestRefreshToken(
        _ homeAccountId: String, _ environments: [String], _ matches: (CacheRefreshToken) -> Bool
    ) -> CacheRefreshToken? {
        guard let bucket = buckets[homeAccountId] else { return nil }
        for environment in environments {
            var best: Int?
            for ref in bucket.refs where ref.kind == .refreshToken {
                let slot = Int(ref.slot)
                let token = contents.refreshTokens[slot]
                guard token.environment == environment, matches(token) else { continue }
                if let current = best, token.modificationSeconds <= contents.refreshTokens[current].modificationSeconds
                {
                    continue
                }
                best = slot
            }
            if let best { return refreshToken(at: best) }
        }
        return nil
    }

    package func idToken(
        homeAccountId: String, environments: [String], realm: String, clientId: String
    ) -> CacheIdToken? {
        idTokenIndex(homeAccountId: homeAccountId, environments: environments, realm: realm, clientId: clientId)
            .flatMap { idToken(at: $0) }
    }

    /// The secret of ``idToken(homeAccountId:environments:realm:clientId:)``, read where the
    /// entry is stored (not copied out).
    func idTokenSecret(homeAccountId: String, environments: [String], realm: String, clientId: String) -> String? {
        idTokenIndex(homeAccountId: homeAccountId, environments: environments, realm: realm, clientId: clientId)
            .flatMap { secret(.idToken, $0) }
    }

    /// Where in ``CacheContents/idTokens`` the account's id token for the realm and client is.
    private func idTokenIndex(homeAccountId: String, environments: [String], realm: String, clientId: String) -> Int? {
        guard let bucket = buckets[homeAccountId] else { return nil }
        for environment in environments {
            for ref in bucket.refs where ref.kind == .idToken {
                let slot = Int(ref.slot)
                if contents.idTokens[slot].environment == environment && contents.idTokens[slot].realm == realm
                    && contents.idTokens[slot].clientId == clientId
                {
                    return slot
                }
            }
        }
        return nil
    }

    package func account(homeAccountId: String, environments: [String], realm: String) -> CacheAccount? {
        guard let bucket = buckets[homeAccountId] else { return nil }
        for environment in environments {
            for ref in bucket.refs where ref.kind == .account {
                let account = contents.accounts[Int(ref.slot)]
                if account.environment == environment && account.realm == realm { return account }
            }
        }
        return nil
    }

    /// All account records (tenant profiles) of a home account, in any environment.
    func accountRecords(homeAccountId: String) -> [CacheAccount] {
        refs(homeAccountId).filter { $0.kind == .account }.map { contents.accounts[Int($0.slot)] }
    }

    func appMetadata(environments: [String], clientId: String) -> CacheAppMetadata? {
        for environment in environments {
            if let index = appMetadataIndex(environment: environment, clientId: clientId) {
                return contents.appMetadata[index]
            }
        }
        return nil
    }

    /// The family to look family refresh tokens up in: the app metadata's `family_id` when app
    /// metadata exists (empty: none), else `"1"` (reference §5 FOCI).
    func familyId(environments: [String], clientId: String) -> String {
        guard let metadata = appMetadata(environments: environments, clientId: clientId) else { return "1" }
        return metadata.familyId ?? ""
    }

    func accountMetadata(clientId: String, homeAccountId: String) -> CacheAccountMetadata? {
        accountMetadataIndex(clientId: clientId, homeAccountId: homeAccountId).map { contents.accountMetadata[$0] }
    }

    func signInState(clientId: String, homeAccountId: String) -> SignInState {
        accountMetadata(clientId: clientId, homeAccountId: homeAccountId)?.signInState ?? .unknown
    }
}
