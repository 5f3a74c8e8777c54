/// Removing accounts and signing out (reference §5 removeAccount / signout).
extension TokenStore {
    /// `removeAccount`: deletes the account's access tokens, id tokens and app refresh tokens of
    /// `clientId` in `environments` (all environments when `nil`); keeps refresh tokens that
    /// carry a `family_id` (other family apps use them) and the Account records; marks the
    /// account `signed_out` for the client, so it leaves `allAccounts` and silent calls fail
    /// with interaction required.
    mutating func removeAccount(homeAccountId: String, clientId: String, environments: [String]?) {
        let victims = victims(homeAccountId: homeAccountId, environments: environments) { ref in
            switch ref.kind {
            case .accessToken: return contents.accessTokens[Int(ref.slot)].clientId == clientId
            case .idToken: return contents.idTokens[Int(ref.slot)].clientId == clientId
            case .refreshToken:
                let token = contents.refreshTokens[Int(ref.slot)]
                return token.clientId == clientId && !token.isFamilyToken
            case .account: return false
            }
        }
        remove(victims)
        removeResourceAccessTokens {
            $0.homeAccountId == homeAccountId && $0.clientId == clientId
                && (environments?.contains($0.environment) ?? true)
        }
        setSignInState(.signedOut, clientId: clientId, homeAccountId: homeAccountId)
    }

    /// Sign-out with `wipeAccount`: every credential of the account for every client, and its
    /// Account records, in `environments` (all when `nil`); the account is `signed_out` for `clientId`.
    mutating func wipeAccount(homeAccountId: String, clientId: String, environments: [String]?) {
        remove(victims(homeAccountId: homeAccountId, environments: environments) { _ in true })
        removeResourceAccessTokens {
            $0.homeAccountId == homeAccountId && (environments?.contains($0.environment) ?? true)
        }
        setSignInState(.signedOut, clientId: clientId, homeAccountId: homeAccountId)
    }

    /// Sign-out with `wipeCacheForAllAccounts`: every token, account, app metadata and account
    /// metadata, and the tokens kept for resource indicators. Sections this library does not know
    /// are kept (they are not its data).
    mutating func wipeAllAccounts() {
        removeAllEntities()
        removeResourceAccessTokens { _ in true }
    }

    private mutating func remove(_ victims: [EntityRef]) {
        // Highest slot first, so swapping the last entry in never moves a pending victim.
        for ref in victims.sorted(by: { $0.slot > $1.slot }) { remove(ref) }
    }

    private func victims(
        homeAccountId: String, environments: [String]?, _ predicate: (EntityRef) -> Bool
    ) -> [EntityRef] {
        refs(homeAccountId).filter { ref in
            let environment: String
            switch ref.kind {
            case .accessToken: environment = contents.accessTokens[Int(ref.slot)].environment
            case .refreshToken: environment = contents.refreshTokens[Int(ref.slot)].environment
            case .idToken: environment = contents.idTokens[Int(ref.slot)].environment
            case .account: environment = contents.accounts[Int(ref.slot)].environment
            }
            if let environments, !environments.contains(environment) { return false }
            return predicate(ref)
        }
    }
}

/// Removing the accounts of a shared cache that nothing can be acquired for any more.
extension TokenStore {
    /// Removes every account that lapsed at `now` (``AccountLapse``): its access tokens, refresh
    /// tokens, id tokens and Account records, and its account metadata for every client. Entries
    /// this library does not understand stay, whoever they belong to.
    ///
    /// - Parameters:
    ///   - now: epoch seconds.
    ///   - unusedLifetime: seconds a refresh token stays redeemable unused (more than 0).
    /// - Returns: the home account ids removed.
    @discardableResult
    package mutating func removeLapsedAccounts(now: Int64, unusedLifetime: Int64) -> [String] {
        var lapsed: [String] = []
        for bucket in buckets.values {
            let evidence = lapseEvidence(bucket.refs)
            if AccountLapse.decide(evidence, now: now, unusedLifetime: unusedLifetime).removes {
                lapsed.append(bucket.homeAccountId)
            }
        }
        for homeAccountId in lapsed {
            // Each account's refs are read afresh: removing one entity moves another into its slot.
            for ref in refs(homeAccountId).sorted(by: { $0.slot > $1.slot }) { remove(ref) }
        }
        let removed = Set(lapsed)
        removeAccountMetadata(of: removed)
        removeResourceAccessTokens { removed.contains($0.homeAccountId) }
        return lapsed
    }

    /// What an account's entries say about its use and expiry.
    private func lapseEvidence(_ refs: [EntityRef]) -> AccountLapse.Evidence {
        var evidence = AccountLapse.Evidence()
        func saw(_ moment: Int64?) {
            guard let moment else { return }
            evidence.lastActivity = max(evidence.lastActivity ?? moment, moment)
        }
        for ref in refs {
            let slot = Int(ref.slot)
            switch ref.kind {
            case .accessToken:
                saw(contents.accessTokens[slot].cachedAt)
                guard let expiresOn = contents.accessTokens[slot].expiresOn else {
                    evidence.accessTokenOfUnknownExpiry = true
                    continue
                }
                let until = max(expiresOn, contents.accessTokens[slot].extendedExpiresOn ?? expiresOn)
                evidence.accessTokensServableUntil = max(evidence.accessTokensServableUntil ?? until, until)
            case .refreshToken:
                let expiresOn = contents.refreshTokens[slot].expiresOn
                let modified = contents.refreshTokens[slot].lastModificationTime.flatMap(Self.wholeSeconds)
                if modified == nil && expiresOn == nil { evidence.refreshTokensOfUnknownAge += 1 }
                saw(modified)
                evidence.addRefreshToken(expiresOn: expiresOn)
            case .idToken, .account:
                continue
            }
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
