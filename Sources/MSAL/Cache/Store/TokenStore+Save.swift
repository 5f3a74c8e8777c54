/// Saving a token response, the small state changes the flows make, and how entries read from a
/// document join the store.
extension TokenStore {
    /// Stores everything a token response carries: the access token (in place of the account's
    /// tokens for its environment, realm, client and type whose scopes intersect its own), the id
    /// token, the account record, the refresh token, app metadata (`family_id` from `foci`, `""`
    /// when absent) and account metadata (`signed_in`).
    package mutating func save(_ record: TokenResponseRecord) {
        let hid = record.homeAccountId
        let target = CacheScopes.target(record.scopes)
        if let secret = record.accessToken {
            let newScopes = target.split(separator: " ").map { $0.lowercased() }
            let type = CacheScopes.normalizedTokenType(record.tokenType)
            let token = CacheAccessToken(
                homeAccountId: hid, environment: record.environment, clientId: record.clientId, realm: record.realm,
                target: target, secret: secret, tokenType: record.tokenType, cachedAt: record.cachedAt,
                expiresOn: record.expiresOn, extendedExpiresOn: record.extendedExpiresOn ?? record.expiresOn,
                refreshOn: record.refreshOn)
            let replaced = { (other: CacheAccessToken) in
                other.environment == record.environment && other.realm == record.realm
                    && other.clientId == record.clientId && CacheScopes.normalizedTokenType(other.tokenType) == type
                    && CacheScopes.intersects(other.target, lowercased: newScopes)
            }
            if let resource = record.resource {
                // The tokens it replaces for that resource go, and every expired one of the section.
                for (key, other) in resourceTokens
                where (other.resource == resource && other.homeAccountId == hid && replaced(other.token))
                    || (other.token.expiresOn ?? 0) <= record.cachedAt
                {
                    remove(CacheResourceToken.self, key: key)
                }
                let entry = CacheResourceToken(token: token, resource: resource)
                put(entry, key: entry.key)
            } else {
                removeAll(CacheAccessToken.self, of: hid, where: replaced)
                put(token, key: token.key)
            }
        }
        if let idToken = record.idToken {
            upsert(
                CacheIdToken(
                    homeAccountId: hid, environment: record.environment, clientId: record.clientId, realm: record.realm,
                    secret: idToken))
        }
        upsert(
            CacheAccount(
                homeAccountId: hid, environment: record.environment, realm: record.realm,
                localAccountId: record.localAccountId, username: record.username,
                authorityType: record.authorityType, clientInfo: record.clientInfo, name: record.name,
                givenName: record.givenName, familyName: record.familyName, middleName: record.middleName,
                accountSource: record.accountSource))
        if let refreshToken = record.refreshToken {
            upsert(
                CacheRefreshToken(
                    homeAccountId: hid, environment: record.environment, clientId: record.clientId,
                    secret: refreshToken, target: target, familyId: (record.foci ?? "").isEmpty ? nil : record.foci,
                    lastModificationTime: String(record.cachedAt), expiresOn: record.refreshTokenExpiresOn))
        }
        upsert(
            CacheAppMetadata(clientId: record.clientId, environment: record.environment, familyId: record.foci ?? ""))
        setSignInState(.signedIn, clientId: record.clientId, homeAccountId: hid)
    }

    /// Puts `entity` under its key in place of the account's entities of the same slot (an access
    /// token's account, environment, realm, client, type and scope set; one refresh token per
    /// account, environment and client, as MSAL Python keeps it, so MSAL.NET's family-keyed and
    /// MSAL for iOS's twice-stored tokens collapse into it; one id token per realm and client).
    mutating func upsert<Entity: StoredEntity>(_ entity: Entity) {
        for (key, other) in entities(Entity.self, of: entity.homeAccountId) where other.isSameSlot(as: entity) {
            remove(Entity.self, key: key)
        }
        put(entity, key: entity.key)
    }

    /// Replaces the account record of the same slot, keeping its key, unknown members and `client_info`.
    mutating func upsert(_ account: CacheAccount) {
        upsertKeepingKey(account) { $0.clientInfo = $0.clientInfo ?? $1.clientInfo }
    }

    /// Replaces the app metadata of the same slot, keeping its key and unknown members.
    mutating func upsert(_ metadata: CacheAppMetadata) {
        upsertKeepingKey(metadata)
    }

    private mutating func upsertKeepingKey<Entity: StoredEntity>(
        _ entity: Entity, _ merge: (inout Entity, Entity) -> Void = { _, _ in }
    ) {
        var entity = entity
        var key = entity.key
        if let (oldKey, old) = entities(Entity.self, of: entity.homeAccountId).first(where: {
            $0.entity.isSameSlot(as: entity)
        }) {
            remove(Entity.self, key: oldKey)
            (key, entity.unknown) = (oldKey, old.unknown)
            merge(&entity, old)
        }
        put(entity, key: key)
    }

    /// Sets the account's sign-in state for `clientId`.
    package mutating func setSignInState(_ state: SignInState, clientId: String, homeAccountId: String) {
        var metadata =
            accountMetadata(clientId: clientId, homeAccountId: homeAccountId)
            ?? CacheAccountMetadata(clientId: clientId, homeAccountId: homeAccountId)
        metadata.signInState = state
        upsert(metadata)
    }

    /// Deletes a refresh token the server rejected, but only while it still holds `secret` (one
    /// another process rotated meanwhile stays). Returns whether one was deleted.
    @discardableResult
    mutating func removeRefreshToken(homeAccountId: String, environment: String, clientId: String, secret: String)
        -> Bool
    {
        let matches = entities(CacheRefreshToken.self, of: homeAccountId).filter {
            $0.entity.environment == environment && $0.entity.clientId == clientId && $0.entity.secret == secret
        }
        for (key, _) in matches { remove(CacheRefreshToken.self, key: key) }
        return !matches.isEmpty
    }

    /// The server answered `client_mismatch` for a family refresh token: the client is not (or no
    /// longer) in the family; its app metadata `family_id` becomes `""`.
    mutating func clearFamilyId(environment: String, clientId: String) {
        var metadata =
            appMetadata(environments: [environment], clientId: clientId)
            ?? CacheAppMetadata(clientId: clientId, environment: environment)
        metadata.familyId = ""
        upsert(metadata)
    }

    /// Adds an entity read from a document under `key`. Of two entries of one key, the later
    /// stays (as every JSON reader sees it); of two entities of one meaning under different keys
    /// (the same token stored twice by another library), the newer stays: an access token by
    /// `cached_at`, a refresh token by `last_modification_time`, the later otherwise. Returns how
    /// many entries were dropped.
    mutating func addLoaded<Entity: StoredEntity>(_ entity: Entity, key: String) -> Int {
        var dropped = 0
        if let twin = entities(Entity.self, of: entity.homeAccountId).first(where: {
            $0.key != key && $0.entity.isSameSlot(as: entity)
        }) {
            if twin.entity.isNewer(than: entity) { return 1 }
            remove(Entity.self, key: twin.key)
            dropped = 1
        }
        return dropped + (put(entity, key: key) ? 1 : 0)
    }
}
