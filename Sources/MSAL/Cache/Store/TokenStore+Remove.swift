/// Removing accounts and signing out (reference §5 removeAccount / signout).
extension TokenStore {
    /// `removeAccount`: deletes the account's access, id and refresh tokens of `clientId`, but the
    /// refresh tokens carrying a `family_id` (other family apps use them) and the Account records;
    /// the account is `signed_out` for the client: gone from `allAccounts`, silent calls fail.
    mutating func removeAccount(homeAccountId: String, clientId: String) {
        removeAll(CacheAccessToken.self, of: homeAccountId) { $0.clientId == clientId }
        removeAll(CacheIdToken.self, of: homeAccountId) { $0.clientId == clientId }
        removeAll(CacheRefreshToken.self, of: homeAccountId) { $0.clientId == clientId && !$0.isFamilyToken }
        removeAll(CacheResourceToken.self, of: homeAccountId) { $0.token.clientId == clientId }
        setSignInState(.signedOut, clientId: clientId, homeAccountId: homeAccountId)
    }

    /// Sign-out with `wipeAccount`: every credential of the account for every client, and its
    /// Account records; the account is `signed_out` for `clientId`.
    mutating func wipeAccount(homeAccountId: String, clientId: String) {
        removeEntities(of: homeAccountId)
        setSignInState(.signedOut, clientId: clientId, homeAccountId: homeAccountId)
    }

    /// Removes the account's tokens and records.
    private mutating func removeEntities(of homeAccountId: String) {
        removeAll(CacheAccessToken.self, of: homeAccountId)
        removeAll(CacheIdToken.self, of: homeAccountId)
        removeAll(CacheRefreshToken.self, of: homeAccountId)
        removeAll(CacheAccount.self, of: homeAccountId)
        removeAll(CacheResourceToken.self, of: homeAccountId)
    }

    /// Removes the account's entities of `type` that `predicate` selects.
    mutating func removeAll<Entity: StoredEntity>(
        _ type: Entity.Type, of homeAccountId: String, where predicate: (Entity) -> Bool = { _ in true }
    ) {
        for (key, entity) in entities(type, of: homeAccountId) where predicate(entity) { remove(type, key: key) }
    }
}

/// Removing the accounts of a shared cache that nothing can be acquired for any more.
extension TokenStore {
    /// Removes every account that lapsed at `now` (epoch seconds; ``AccountLapse``), its tokens,
    /// records and account metadata, where refresh tokens stay redeemable for `unusedLifetime`
    /// seconds unused. Entries this library does not understand stay. Returns the ids removed.
    @discardableResult
    package mutating func removeLapsedAccounts(now: Int64, unusedLifetime: Int64) -> [String] {
        let lapsed = homeAccountIds.filter { homeAccountId in
            AccountLapse.decide(lapseEvidence(homeAccountId), now: now, unusedLifetime: unusedLifetime).removes
        }
        for homeAccountId in lapsed { removeEntities(of: homeAccountId) }
        let removed = Set(lapsed)
        removeAccountMetadata(of: removed)
        return lapsed
    }

    /// What an account's entries say about its use and expiry.
    private func lapseEvidence(_ homeAccountId: String) -> AccountLapse.Evidence {
        var evidence = AccountLapse.Evidence()
        func saw(_ moment: Int64?) {
            if let moment { evidence.lastActivity = max(evidence.lastActivity ?? moment, moment) }
        }
        for (_, token) in entities(CacheAccessToken.self, of: homeAccountId) {
            saw(token.cachedAt)
            guard let expiresOn = token.expiresOn else {
                evidence.accessTokenOfUnknownExpiry = true
                continue
            }
            let until = max(expiresOn, token.extendedExpiresOn ?? expiresOn)
            evidence.accessTokensServableUntil = max(evidence.accessTokensServableUntil ?? until, until)
        }
        for (_, token) in entities(CacheRefreshToken.self, of: homeAccountId) {
            let modified = token.lastModificationTime.flatMap(Self.wholeSeconds)
            if modified == nil && token.expiresOn == nil { evidence.refreshTokensOfUnknownAge += 1 }
            saw(modified)
            evidence.addRefreshToken(expiresOn: token.expiresOn)
        }
        return evidence
    }

    /// A `last_modification_time` (integer or fractional epoch seconds, as text) in whole seconds,
    /// clamped so that no later sum overflows; `nil` when it is not a finite number.
    private static func wholeSeconds(_ text: String) -> Int64? {
        guard let value = Double(text), value.isFinite else { return nil }
        return Int64(min(max(value, -1e15), 1e15))
    }
}
