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
        var results: [CachedAccountSummary] = []
        for homeAccountId in candidates {
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
        return Self.summary(records, idTokens: entities(CacheIdToken.self, of: homeAccountId).map(\.entity), clientId)
    }

    /// The account of `homeAccountId` as a cache hit's result shows it, and the client's id
    /// token for `realm` (trying `environments` in order): one look at the account's entries.
    func accountAndIdToken(homeAccountId: String, clientId: String, environments: [String], realm: String) -> (
        account: CachedAccountSummary?, idToken: String?
    ) {
        var records: [(key: String, account: CacheAccount)] = []
        var idTokens: [CacheIdToken] = []
        forEach(CacheAccount.self, of: homeAccountId) { records.append(($0, $1)) }
        forEach(CacheIdToken.self, of: homeAccountId) { idTokens.append($1) }
        let idToken = idTokens.filter { $0.realm == realm && $0.clientId == clientId }
            .min {
                (environments.firstIndex(of: $0.environment) ?? .max)
                    < (environments.firstIndex(of: $1.environment) ?? .max)
            }
            .flatMap { environments.contains($0.environment) ? $0.secret : nil }
        if records.count > 1 { records.sort { $0.key < $1.key } }
        return (Self.summary(records.map(\.account), idTokens: idTokens, clientId), idToken)
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
            let idToken = idTokens.filter { $0.environment == record.environment && $0.realm == record.realm }
                .min { ($0.clientId == clientId ? "" : $0.clientId) < ($1.clientId == clientId ? "" : $1.clientId) }
            profiles.append(CachedTenantProfile(account: record, isHomeTenant: isHome, idToken: idToken?.secret))
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
