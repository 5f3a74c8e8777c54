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
    var identifier: String? = nil
    var username: String? = nil
    /// A tenant profile's local account id (`oid`).
    var tenantProfileIdentifier: String? = nil
    /// Keep only accounts that have a refresh token for the client or its family, or are marked
    /// `signed_in` for the client. Accounts `signed_out` for the client are always left out.
    var returnOnlySignedInAccounts = true
}

extension TokenStore {
    /// The accounts matching `query` for `clientId`, merged per home account id, in
    /// `environments` (a cloud's aliases; `nil`: all); `familyId` is the client's family (empty:
    /// none), for the signed-in test.
    func accounts(clientId: String, familyId: String, environments: [String]?, query: AccountQuery)
        -> [CachedAccountSummary]
    {
        let candidates: [String]
        if let identifier = query.identifier {
            let lowercased = identifier.lowercased()
            candidates = lowercased == identifier ? [identifier] : [identifier, lowercased]
        } else if let username = query.username {
            candidates = homeAccountIds(username: username)
        } else {
            candidates = homeAccountIds.sorted()
        }
        return candidates.compactMap {
            summary(homeAccountId: $0, clientId: clientId, familyId: familyId, environments: environments, query: query)
        }
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
        let matches = { (wanted: String?, value: (CacheAccount) -> String) in
            wanted.map { wanted in records.contains { value($0).lowercased() == wanted.lowercased() } } ?? true
        }
        guard !records.isEmpty, matches(query.username, \.username),
            matches(query.tenantProfileIdentifier, \.localAccountId)
        else { return nil }
        if query.returnOnlySignedInAccounts
            && !isSignedIn(
                homeAccountId: homeAccountId, clientId: clientId, familyId: familyId, environments: environments)
        {
            return nil
        }
        return Self.summary(records, idTokens: entities(CacheIdToken.self, of: homeAccountId).map(\.entity), clientId)
    }

    /// The account as a cache hit's result shows it, and the client's id token for `realm`. The
    /// account's entries are gathered in one pass over its index (this is on every cache hit).
    func accountAndIdToken(homeAccountId: String, clientId: String, environments: [String], realm: String) -> (
        account: CachedAccountSummary?, idToken: String?
    ) {
        var records: [(key: String, account: CacheAccount)] = []
        var idTokens: [CacheIdToken] = []
        for entry in index[homeAccountId] ?? [] {
            if entry.section == .account, let record = accounts[entry.key] { records.append((entry.key, record)) }
            if entry.section == .idToken, let token = self.idTokens[entry.key] { idTokens.append(token) }
        }
        var idToken: (rank: Int, secret: String)?
        for token in idTokens where token.realm == realm && token.clientId == clientId {
            guard let rank = environments.firstIndex(of: token.environment), rank < idToken?.rank ?? .max
            else { continue }
            idToken = (rank, token.secret)
        }
        if records.count > 1 { records.sort { $0.key < $1.key } }
        return (Self.summary(records.map(\.account), idTokens: idTokens, clientId), idToken?.secret)
    }

    /// An account's records (tenant profiles) merged, the first of each realm, each with its id
    /// token: the client's own, else another client's.
    private static func summary(_ records: [CacheAccount], idTokens: [CacheIdToken], _ clientId: String)
        -> CachedAccountSummary?
    {
        guard let first = records.first else { return nil }
        let homeTenant = homeTenant(of: first.homeAccountId)
        var profiles: [CachedTenantProfile] = []
        for record in records
        where !profiles.contains(where: { ASCII.equalsIgnoringCase($0.account.realm, record.realm) }) {
            let isHome = homeTenant.map { ASCII.equalsIgnoringCase($0, record.realm) } ?? true
            // The client's own, else the first by client id.
            var best: Int?
            for index in idTokens.indices
            where idTokens[index].environment == record.environment && idTokens[index].realm == record.realm {
                let rank = { (token: CacheIdToken) in token.clientId == clientId ? "" : token.clientId }
                if best.map({ rank(idTokens[index]) < rank(idTokens[$0]) }) ?? true { best = index }
            }
            profiles.append(
                CachedTenantProfile(account: record, isHomeTenant: isHome, idToken: best.map { idTokens[$0].secret }))
        }
        let primary = profiles.first(where: \.isHomeTenant) ?? profiles[0]
        return CachedAccountSummary(
            homeAccountId: primary.account.homeAccountId, environment: primary.account.environment,
            username: primary.account.username, tenantProfiles: profiles)
    }

    /// Has a refresh token for the client or its family, or is marked `signed_in` for the client.
    func isSignedIn(homeAccountId: String, clientId: String, familyId: String, environments: [String]?) -> Bool {
        if signInState(clientId: clientId, homeAccountId: homeAccountId) == .signedIn { return true }
        return entities(CacheRefreshToken.self, of: homeAccountId).contains { _, token in
            if let environments, !environments.contains(token.environment) { return false }
            return token.clientId == clientId || (!familyId.isEmpty && token.familyId == familyId)
        }
    }

    /// The utid part of `<uid>.<utid>`, or `nil` for ids without one (ADFS, OIDC).
    static func homeTenant(of homeAccountId: String) -> String? {
        guard let dot = homeAccountId.utf8.firstIndex(of: UInt8(ascii: ".")) else { return nil }
        return String(homeAccountId[homeAccountId.index(after: dot)...])
    }
}
