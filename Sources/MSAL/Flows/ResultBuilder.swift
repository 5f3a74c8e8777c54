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

    /// The account object and id token a result needs, read from `store` (call inside a cache read).
    func parts(_ store: TokenStore, homeAccountId: String, scope: CacheLookupScope) -> (
        account: MSALAccount?, idToken: String?
    ) {
        let found = store.accountAndIdToken(
            homeAccountId: homeAccountId, clientId: context.clientId, environments: scope.environments,
            realm: scope.realm)
        return (found.account.map(Self.account), found.idToken)
    }

    /// The result for the tokens just returned or found in the cache.
    func result(
        homeAccountId: String, scope: CacheLookupScope, accessToken: String, scopes: [String],
        expiresOn: Date?, extended: Bool, correlationId: UUID
    ) async throws -> MSALResult {
        let (account, idToken) = try await context.cache.read { store in
            parts(store, homeAccountId: homeAccountId, scope: scope)
        }
        return result(
            account: account, idToken: idToken, homeAccountId: homeAccountId, scope: scope,
            accessToken: accessToken, scopes: scopes, expiresOn: expiresOn, extended: extended,
            correlationId: correlationId)
    }

    /// The result from parts already read (see ``parts(_:homeAccountId:scope:)``).
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
