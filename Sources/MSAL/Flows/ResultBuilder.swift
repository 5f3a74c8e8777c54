import Foundation
import MSALNative

/// Builds the public account and result objects from cache entries.
struct ResultBuilder {
    let context: ApplicationContext

    /// The public account for a merged cache account.
    static func account(_ summary: CachedAccountSummary) -> MSALAccount {
        let profiles = summary.tenantProfiles.map { profile in
            MSALTenantProfile(
                identifier: profile.account.localAccountId, environment: profile.account.environment,
                tenantId: profile.account.realm, isHomeTenantProfile: profile.isHomeTenant,
                idToken: profile.idToken)
        }
        return MSALAccount(
            username: summary.username, homeAccountId: summary.homeAccountId, environment: summary.environment,
            tenantProfiles: profiles, homeIdToken: summary.homeProfile?.idToken)
    }

    /// The family id of this client in any cloud (app metadata), else the default family.
    static func familyId(_ store: TokenStore, clientId: String) -> String {
        guard let metadata = store.contents.appMetadata.first(where: { $0.clientId == clientId }) else { return "1" }
        return metadata.familyId ?? ""
    }

    /// The account object and id token a result needs, read from `store` (call inside a cache
    /// read). The account object is rebuilt only when the cache changed since it was made.
    func parts(
        _ store: inout TokenStore, generation: UInt64, homeAccountId: String, scope: CacheLookupScope
    ) -> (account: MSALAccount?, idToken: String?) {
        let clientId = context.clientId
        let environments = scope.environments
        let realm = scope.realm
        let known = context.accounts.withLock { $0[homeAccountId] }
        if let known, known.generation == generation, let idToken = known.idToken,
            idToken.realm == realm, idToken.environments == environments
        {
            return (known.account, idToken.secret)
        }
        let idToken = store.idTokenSecret(
            homeAccountId: homeAccountId, environments: environments, realm: realm, clientId: clientId)
        let account: MSALAccount?
        if let known, known.generation == generation {
            account = known.account
        } else {
            let summary = store.accounts(
                clientId: clientId, familyId: Self.familyId(store, clientId: clientId), environments: nil,
                query: AccountQuery(identifier: homeAccountId, returnOnlySignedInAccounts: false)
            ).first
            account = summary.map(Self.account)
        }
        if let account {
            let memo = ResultPartsMemo(
                generation: generation, account: account,
                idToken: (realm: realm, environments: environments, secret: idToken))
            context.accounts.withLock { $0[homeAccountId] = memo }
        }
        return (account, idToken)
    }

    /// The result for the tokens just returned or found in the cache.
    func result(
        homeAccountId: String, scope: CacheLookupScope, accessToken: String, scopes: [String],
        expiresOn: Date?, extended: Bool, correlationId: UUID
    ) async throws -> MSALResult {
        let (account, idToken) = try await context.cache.readVersioned { store, generation in
            parts(&store, generation: generation, homeAccountId: homeAccountId, scope: scope)
        }
        return result(
            account: account, idToken: idToken, homeAccountId: homeAccountId, scope: scope,
            accessToken: accessToken, scopes: scopes, expiresOn: expiresOn, extended: extended,
            correlationId: correlationId)
    }

    /// The result from parts already read (see ``parts(_:generation:homeAccountId:scope:)``).
    func result(
        account cachedAccount: MSALAccount?, idToken: String?, homeAccountId: String, scope: CacheLookupScope,
        accessToken: String, scopes: [String], expiresOn: Date?, extended: Bool, correlationId: UUID
    ) -> MSALResult {
        let realm = scope.realm
        let account =
            cachedAccount
            ?? MSALAccount(
                username: nil, homeAccountId: homeAccountId, environment: scope.cacheEnvironment,
                tenantProfiles: nil, homeIdToken: nil)
        let profile =
            account.tenantProfiles?.first { $0.tenantId.map { ASCII.equalsIgnoringCase($0, realm) } ?? false }
            ?? MSALTenantProfile(
                identifier: nil, environment: scope.cacheEnvironment, tenantId: realm,
                isHomeTenantProfile: account.homeAccountId?.tenantId.map { ASCII.equalsIgnoringCase($0, realm) }
                    ?? false,
                idToken: idToken)
        return MSALResult(
            accessToken: accessToken, expiresOn: expiresOn, extendedLifeTimeToken: extended, idToken: idToken,
            scopes: scopes, tenantProfile: profile, account: account,
            authority: scope.publicAuthority, correlationId: correlationId)
    }
}

/// What a cache hit's result needs besides the token, kept per home account until the cache
/// changes (its generation): the account object, and the id token of the last realm asked for.
struct ResultPartsMemo: Sendable {
    var generation: UInt64
    var account: MSALAccount
    var idToken: (realm: String, environments: [String], secret: String?)?
}
