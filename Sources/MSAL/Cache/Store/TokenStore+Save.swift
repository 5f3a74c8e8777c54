/// Saving a token response and the small state changes the flows make.
extension TokenStore {
    /// Stores everything a token response carries, in one call (reference §5 step 5):
    /// the access token, replacing the account's tokens for the same environment, realm, client
    /// and type whose scopes intersect the new ones; the id token; the account record; the
    /// refresh token (one per account and client, carrying `family_id` for FOCI clients, as
    /// MSAL Python stores it); app metadata (`family_id` from `foci`, `""` when absent, when
    /// the response said nothing about families); and account metadata (`signed_in`, authority map).
    package mutating func save(_ record: TokenResponseRecord) {
        let hid = record.homeAccountId
        let target = CacheScopes.target(record.scopes)
        if let secret = record.accessToken, record.resource != nil {
            saveResourceAccessToken(record, secret: secret)
        } else if let secret = record.accessToken {
            let newScopes = target.split(separator: " ").map { $0.lowercased() }
            let type = CacheScopes.normalizedTokenType(record.tokenType)
            let stale = refs(hid).filter { ref in
                guard ref.kind == .accessToken else { return false }
                let token = contents.accessTokens[Int(ref.slot)]
                return token.environment == record.environment && token.realm == record.realm
                    && token.clientId == record.clientId && CacheScopes.normalizedTokenType(token.tokenType) == type
                    && CacheScopes.intersects(token.target, lowercased: newScopes)
            }
            for ref in stale.sorted(by: { $0.slot > $1.slot }) { remove(ref) }
            upsert(
                CacheAccessToken(
                    homeAccountId: hid, environment: record.environment, clientId: record.clientId, realm: record.realm,
                    target: target, secret: secret, tokenType: record.tokenType, cachedAt: record.cachedAt,
                    expiresOn: record.expiresOn, extendedExpiresOn: record.extendedExpiresOn ?? record.expiresOn,
                    refreshOn: record.refreshOn))
        }
        if let idToken = record.idToken {
            upsert(
                CacheIdToken(
                    homeAccountId: hid, environment: record.environment, clientId: record.clientId, realm: record.realm,
                    secret: idToken))
        }
        if record.storesAccount {
            upsert(
                CacheAccount(
                    homeAccountId: hid, environment: record.environment, realm: record.realm,
                    localAccountId: record.localAccountId, username: record.username,
                    authorityType: record.authorityType, clientInfo: record.clientInfo, name: record.name,
                    givenName: record.givenName, familyName: record.familyName, middleName: record.middleName,
                    accountSource: record.accountSource),
                keepUnknown: true)
        }
        if let refreshToken = record.refreshToken {
            upsert(
                CacheRefreshToken(
                    homeAccountId: hid, environment: record.environment, clientId: record.clientId,
                    secret: refreshToken, target: target,
                    familyId: (record.foci ?? "").isEmpty ? nil : record.foci,
                    lastModificationTime: String(record.cachedAt), expiresOn: record.refreshTokenExpiresOn))
        }
        upsert(
            CacheAppMetadata(clientId: record.clientId, environment: record.environment, familyId: record.foci ?? ""),
            keepUnknown: true)
        if record.marksSignedIn || record.authorityMapEntry != nil {
            var metadata =
                accountMetadata(clientId: record.clientId, homeAccountId: hid)
                ?? CacheAccountMetadata(clientId: record.clientId, homeAccountId: hid)
            if record.marksSignedIn { metadata.signInState = .signedIn }
            if let entry = record.authorityMapEntry {
                metadata.authorityMap[entry.map, default: [:]][entry.request] = entry.result
            }
            upsert(metadata)
        }
    }

    /// Sets the account's sign-in state for `clientId`.
    package mutating func setSignInState(_ state: SignInState, clientId: String, homeAccountId: String) {
        var metadata =
            accountMetadata(clientId: clientId, homeAccountId: homeAccountId)
            ?? CacheAccountMetadata(clientId: clientId, homeAccountId: homeAccountId)
        metadata.signInState = state
        upsert(metadata)
    }

    /// Deletes a refresh token the server rejected (`invalid_grant` / `bad_token`), but only
    /// while it still holds `secret`: a token another process rotated meanwhile is kept.
    /// Returns whether one was deleted.
    @discardableResult
    mutating func removeRefreshToken(homeAccountId: String, environment: String, clientId: String, secret: String)
        -> Bool
    {
        let matches = refs(homeAccountId).filter { ref in
            guard ref.kind == .refreshToken else { return false }
            let token = contents.refreshTokens[Int(ref.slot)]
            return token.environment == environment && token.clientId == clientId
                && self.secret(.refreshToken, Int(ref.slot)) == secret
        }
        for ref in matches.sorted(by: { $0.slot > $1.slot }) { remove(ref) }
        return !matches.isEmpty
    }

    /// Deletes an access token (an expired one the silent flow found) while it still holds `secret`.
    mutating func removeAccessToken(_ token: CacheAccessToken) {
        let matches = refs(token.homeAccountId).filter { ref in
            guard ref.kind == .accessToken else { return false }
            let other = contents.accessTokens[Int(ref.slot)]
            return secret(.accessToken, Int(ref.slot)) == token.secret && other.environment == token.environment
                && other.clientId == token.clientId
        }
        for ref in matches.sorted(by: { $0.slot > $1.slot }) { remove(ref) }
    }

    /// The server answered `client_mismatch` for a family refresh token: the client is not (or
    /// no longer) in the family; its app metadata `family_id` becomes `""`.
    mutating func clearFamilyId(environment: String, clientId: String) {
        var metadata =
            appMetadata(environments: [environment], clientId: clientId)
            ?? CacheAppMetadata(clientId: clientId, environment: environment)
        metadata.familyId = ""
        upsert(metadata, keepUnknown: true)
    }
}
