/// One tenant profile of an account: its Account record and, when cached, its id token.
struct CachedTenantProfile: Sendable, Equatable {
    var account: CacheAccount
    /// realm == the home tenant (utid of the home account id; single-tenant ids count as home).
    var isHomeTenant: Bool
    /// The raw id_token for this realm: the client's own, else another client's.
    var idToken: String?
}

/// An account as the public API shows it: the records of one home account id merged, with a
/// tenant profile per realm (first record per realm wins).
struct CachedAccountSummary: Sendable, Equatable {
    var homeAccountId: String
    var environment: String
    /// The username of the home profile, else of the first profile.
    var username: String
    var tenantProfiles: [CachedTenantProfile]

    var homeProfile: CachedTenantProfile? { tenantProfiles.first(where: \.isHomeTenant) }
}

/// The filters of ``MSALAccountEnumerationParameters``: all case-insensitive.
struct AccountQuery: Sendable {
    /// The home account id (`MSALAccount.identifier`).
    var identifier: String?
    var username: String?
    /// A tenant profile's local account id (`oid`).
    var tenantProfileIdentifier: String?
    /// Keep only accounts that have a refresh token for the client or its family, or are marked
    /// `signed_in` for the client. Accounts `signed_out` for the client are always left out.
    var returnOnlySignedInAccounts = true

    init(
        identifier: String? = nil, username: String? = nil, tenantProfileIdentifier: String? = nil,
        returnOnlySignedInAccounts: Bool = true
    ) {
        self.identifier = identifier
        self.username = username
        self.tenantProfileIdentifier = tenantProfileIdentifier
        self.returnOnlySignedInAccounts = returnOnlySignedInAccounts
    }
}

extension TokenStore {
    /// The accounts matching `query` for `clientId`, merged per home account id.
    ///
    /// - Parameters:
    ///   - environments: the cloud's environment aliases; `nil` for all environments.
    ///   - familyId: the client's family (see ``familyId(environments:clientId:)``), for the
    ///     signed-in test; empty for none.
    mutating func accounts(clientId: String, familyId: String, environments: [String]?, query: AccountQuery)
        -> [CachedAccountSummary]
    {
        let candidates: [String]
        if let identifier = query.identifier {
            candidates = [identifier, identifier.lowercased()].filter { buckets[$0] != nil }
        } else if let username = query.username {
            candidates = homeAccountIds(username: username)
        } else {
            var seen = Set<String>()
            candidates = contents.accounts.compactMap {
                seen.insert($0.homeAccountId).inserted ? $0.homeAccountId : nil
            }
        }
        var results: [CachedAccountSummary] = []
        var seen = Set<String>()
        for homeAccountId in candidates where seen.insert(homeAccountId).inserted {
            guard
                let summary = summary(
                    homeAccountId: homeAccountId, clientId: clientId, familyId: familyId, environments: environments,
                    query: query)
            else { continue }
            results.append(summary)
        }
        return results
    }

    private func summary(
        homeAccountId: String, clientId: String, familyId: String, environments: [String]?, query: AccountQuery
    ) -> CachedAccountSummary? {
        if signInState(clientId: clientId, homeAccountId: homeAccountId) == .signedOut { return nil }
        var records = accountRecords(homeAccountId: homeAccountId)
        if let environments {
            records = records.filter { environments.contains($0.environment) }
            records.sort {
                (environments.firstIndex(of: $0.environment) ?? 0) < (environments.firstIndex(of: $1.environment) ?? 0)
            }
        }
        guard !records.isEmpty else { return nil }
        if let username = query.username,
            !records.contains(where: { $0.username.lowercased() == username.lowercased() })
        {
            return nil
        }
        if let tenantProfile = query.tenantProfileIdentifier,
            !records.contains(where: { $0.localAccountId.lowercased() == tenantProfile.lowercased() })
        {
            return nil
        }
        if query.returnOnlySignedInAccounts
            && !isSignedIn(
                homeAccountId: homeAccountId, clientId: clientId, familyId: familyId, environments: environments)
        {
            return nil
        }
        let homeTenant = Self.homeTenant(of: homeAccountId)
        var profiles: [CachedTenantProfile] = []
        var realms = Set<String>()
        for record in records where realms.insert(record.realm.lowercased()).inserted {
            let isHome = homeTenant.map { $0 == record.realm.lowercased() } ?? true
            let own = idToken(
                homeAccountId: homeAccountId, environments: [record.environment], realm: record.realm,
                clientId: clientId)
            let any =
                own?.secret
                ?? refs(homeAccountId).first { ref in
                    ref.kind == .idToken && contents.idTokens[Int(ref.slot)].environment == record.environment
                        && contents.idTokens[Int(ref.slot)].realm == record.realm
                }.flatMap { secret(.idToken, Int($0.slot)) }
            profiles.append(CachedTenantProfile(account: record, isHomeTenant: isHome, idToken: any))
        }
        let primary = profiles.first(where: \.isHomeTenant) ?? profiles[0]
        return CachedAccountSummary(
            homeAccountId: primary.account.homeAccountId, environment: primary.account.environment,
            username: primary.account.username, tenantProfiles: profiles)
    }

    /// Has a refresh token for the client or its family, or is marked `signed_in` for the client.
    func isSignedIn(homeAccountId: String, clientId: String, familyId: String, environments: [String]?) -> Bool {
        if signInState(clientId: clientId, homeAccountId: homeAccountId) == .signedIn { return true }
        return refs(homeAccountId).contains { ref in
            guard ref.kind == .refreshToken else { return false }
            let token = contents.refreshTokens[Int(ref.slot)]
            if let environments, !environments.contains(token.environment) { return false }
            return token.clientId == clientId || (!familyId.isEmpty && token.familyId == familyId)
        }
    }

    /// The utid part of `<uid>.<utid>` (lowercased), or `nil` for ids without one (ADFS, OIDC).
    static func homeTenant(of homeAccountId: String) -> String? {
        guard let dot = homeAccountId.firstIndex(of: ".") else { return nil }
        return String(homeAccountId[homeAccountId.index(after: dot)...]).lowercased()
    }
}
