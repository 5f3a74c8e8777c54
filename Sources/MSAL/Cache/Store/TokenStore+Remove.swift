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
        setSignInState(.signedOut, clientId: clientId, homeAccountId: homeAccountId)
    }

    /// Sign-out with `wipeAccount`: every credential of the account for every client, and its
    /// Account records, in `environments` (all when `nil`); the account is `signed_out` for `clientId`.
    mutating func wipeAccount(homeAccountId: String, clientId: String, environments: [String]?) {
        remove(victims(homeAccountId: homeAccountId, environments: environments) { _ in true })
        setSignInState(.signedOut, clientId: clientId, homeAccountId: homeAccountId)
    }

    /// Sign-out with `wipeCacheForAllAccounts`: every token, account, app metadata and account
    /// metadata. Sections this library does not know are kept (they are not its data).
    mutating func wipeAllAccounts() {
        removeAllEntities()
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
