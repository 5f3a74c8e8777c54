import Foundation

/// `acquireTokenSilent` (reference §5): the cached access token when it is good, else the
/// refresh token (the app's, then the family's), with MSAL's fallbacks, error mapping and
/// throttling. Concurrent calls that need the same refresh share one token request.
struct SilentFlow {
    let context: ApplicationContext

    /// The request, snapshotted from the public parameters.
    struct Request {
        var scopes: [String]
        var account: MSALAccount?
        var loginHint: String?
        var authority: MSALAuthority?
        var claims: MSALClaimsRequest?
        var correlationId: UUID
        var extraQueryParameters: [String: String]?
        var forceRefresh: Bool
        /// The RFC 8707 resource indicator to send, or `nil`.
        var resource: String? = nil
    }

    func run(_ request: Request) async throws -> MSALResult {
        let correlationId = request.correlationId
        let account = try await resolveAccount(request)
        guard let homeAccountId = account.identifier else {
            throw interactionRequired("The account has no identifier; sign in interactively.", correlationId)
        }
        let (authority, knownAuthorities) = try context.requestAuthority(
            request.authority, account: account, retarget: true, correlationId: correlationId)
        let scopes = try ScopeRules.requestScopes(
            request.scopes, clientId: context.clientId, authority: authority, correlationId: correlationId)
        let homeTenant = account.homeAccountId?.tenantId
        let claims = MSALClaimsRequest.merged(request.claims, capabilities: context.capabilities)

        try ResourceIndicator.check(request.resource, for: authority, correlationId: correlationId)
        // With a resource indicator the cache answers with a token of that resource only
        // (``TokenStore/resourceAccessToken(homeAccountId:environments:realm:clientId:scopes:resource:)``).
        let skipCache = request.forceRefresh || request.claims != nil
        // The cache first, with what sign-in recorded: discovery runs only when a request is
        // about to be sent, so a cached token needs no network.
        if !skipCache,
            let offline = await context.resolver.offlineLookupScope(
                authority, knownAuthorities: knownAuthorities, homeTenant: homeTenant),
            case .hit(let hit) = try await cachedToken(
                homeAccountId: homeAccountId, scope: offline, scopes: scopes, resource: request.resource)
        {
            Log.info("Returning a cached access token", correlationId: correlationId)
            return result(of: hit, homeAccountId: homeAccountId, scope: offline, correlationId)
        }
        let resolved = try await context.resolver.resolve(
            authority, knownAuthorities: knownAuthorities, correlationId: correlationId)
        let realm = ApplicationContext.cacheRealm(resolved, homeTenant: homeTenant)
        let scope = resolved.lookupScope(realm: realm)
        let lookup = try await cachedToken(
            homeAccountId: homeAccountId, scope: scope, scopes: scopes, resource: request.resource, skipCache: skipCache
        )
        let decision = SilentTokenDecision.decide(
            status: lookup.status, skipCache: skipCache,
            extendedLifetimeEnabled: context.extendedLifetimeEnabled)
        if case .returnCached = decision, case .hit(let hit) = lookup {
            Log.info("Returning a cached access token", correlationId: correlationId)
            return result(of: hit, homeAccountId: homeAccountId, scope: scope, correlationId)
        }
        // Through the broker when it is on, the account's source lets it (``BrokerFlow/silentGoesToBroker(accountSource:)``)
        // and a broker answers (its tokens come without a refresh token).
        if let brokered = BrokerFlow(context: context, authority: authority),
            BrokerFlow.silentGoesToBroker(accountSource: try await accountSource(homeAccountId)),
            let result = try await brokered.silent(
                scopes: scopes, resolved: resolved, account: account, claims: claims, correlationId: correlationId)
        {
            return result
        }
        return try await refresh(
            RefreshAttempt(
                request: request, homeAccountId: homeAccountId, account: account, resolved: resolved, realm: realm,
                scopes: scopes, claims: claims,
                cached: lookup.fallback(for: decision)))
    }

    // MARK: Account and cache

    /// The cached `account_source` of the account (any of its records), `nil` when none says.
    private func accountSource(_ homeAccountId: String) async throws -> String? {
        try await context.cache.read { store in
            store.accountRecords(homeAccountId: homeAccountId).lazy.compactMap(\.accountSource).first
        }
    }

    private func resolveAccount(_ request: Request) async throws -> MSALAccount {
        if let account = request.account { return account }
        guard let hint = request.loginHint, !hint.isEmpty else {
            throw interactionRequired(
                "No account provided for the silent request. Please call interactive acquireToken request to get "
                    + "an account identifier before calling acquireTokenSilent.", request.correlationId)
        }
        let clientId = context.clientId
        let summaries = try await context.cache.read { store in
            store.accounts(
                clientId: clientId, familyId: store.familyId(clientId: clientId), environments: nil,
                query: AccountQuery(username: hint))
        }
        guard let summary = summaries.first else {
            throw interactionRequired(
                "No cached account matches the login hint; sign in interactively.", request.correlationId)
        }
        return ResultBuilder.account(summary)
    }

    /// The cached access token for the request and its status, in one cache read: when it can be
    /// returned as it is, only what the result needs (``CacheLookup/hit(_:)``; the entry is not
    /// copied out of the store, a copy costing more than the rest of a hit), else the token
    /// itself (``CacheLookup/needsRefresh(_:_:)``), for the refresh and its fallbacks.
    private func cachedToken(
        homeAccountId: String, scope: CacheLookupScope, scopes: OrderedScopes, resource: String?,
        skipCache: Bool = false
    ) async throws -> CacheLookup {
        let clientId = context.clientId
        let now = context.now()
        let buffer = context.tokenExpirationBuffer
        let wanted = TokenStore.lowercasedScopes(scopes.values)
        let builder = ResultBuilder(context: context)
        return try await context.cache.read { store in
            if store.signInState(clientId: clientId, homeAccountId: homeAccountId) == .signedOut {
                throw interactionRequired("Account is signed out, user interaction is required.", nil)
            }
            // B2C tokens written by MSAL Python are under the tenant named in the authority's path
            // (its token endpoint's first segment), ours under the tenant id: look in both.
            var found: CacheAccessToken?
            for realm in [scope.realm] + (scope.alternateRealm.map { [$0] } ?? []) where found == nil {
                found =
                    if let resource {
                        store.resourceAccessToken(
                            homeAccountId: homeAccountId, environments: scope.environments, realm: realm,
                            clientId: clientId, scopes: wanted, resource: resource)
                    } else {
                        store.accessToken(
                            homeAccountId: homeAccountId, environments: scope.environments, realm: realm,
                            clientId: clientId, scopes: wanted)
                    }
            }
            guard let token = found else { return .miss }
            let status = AccessTokenStatus(token, at: now, buffer: buffer)
            guard !skipCache, status == .valid(refreshNeeded: false) else { return .needsRefresh(token, status) }
            let parts = builder.parts(store, homeAccountId: homeAccountId, scope: scope)
            return .hit(
                CacheHit(
                    secret: token.secret, target: token.target, expiresOn: token.expiresOn, account: parts.account,
                    idToken: parts.idToken))
        }
    }

    private func result(
        of hit: CacheHit, homeAccountId: String, scope: CacheLookupScope, _ correlationId: UUID
    ) -> MSALResult {
        ResultBuilder(context: context).result(
            account: hit.account, idToken: hit.idToken, homeAccountId: homeAccountId, scope: scope,
            accessToken: hit.secret, scopes: context.scopes(ofTarget: hit.target),
            expiresOn: hit.expiresOn.map { Date(timeIntervalSince1970: TimeInterval($0)) }, extended: false,
            correlationId: correlationId)
    }

    /// The result of a cached token a failed refresh falls back to.
    private func result(of cached: CachedFallback, _ attempt: RefreshAttempt) async throws -> MSALResult {
        try await ResultBuilder(context: context).result(
            homeAccountId: attempt.homeAccountId, scope: attempt.lookupScope, accessToken: cached.token.secret,
            scopes: context.scopes(ofTarget: cached.token.target),
            expiresOn: cached.token.expiresOn.map { Date(timeIntervalSince1970: TimeInterval($0)) },
            extended: cached.fallback == .extendedLifetime, correlationId: attempt.correlationId)
    }

    // MARK: Refresh

    private func refresh(_ attempt: RefreshAttempt) async throws -> MSALResult {
        let key = attempt.key
        let context = context
        do {
            // One refresh per key in this process (SingleFlight), and across processes sharing the
            // cache file (the refresh lock; `redeem` re-reads the cache once it holds it).
            return try await context.refreshes.run(key) {
                try await context.withRefreshLock(key) { try await redeem(attempt) }
            }.value
        } catch let failure as RefreshFailure {
            if let cached = attempt.cached, SilentTokenDecision.mayFallBack(cached.fallback, after: failure) {
                Log.warning("Refresh failed; returning the cached access token", correlationId: attempt.correlationId)
                return try await result(of: cached, attempt)
            }
            throw failure.error
        }
    }

    private func redeem(_ attempt: RefreshAttempt) async throws -> MSALResult {
        let clientId = context.clientId
        let homeAccountId = attempt.homeAccountId
        let environments = attempt.resolved.cacheLookupEnvironments
        // Another caller (or a process sharing the cache file) may have refreshed meanwhile: a
        // token that is now good is returned without a request.
        if attempt.mayReturnFreshToken,
            case .hit(let fresh) = try await cachedToken(
                homeAccountId: homeAccountId, scope: attempt.lookupScope, scopes: attempt.scopes,
                resource: attempt.request.resource),
            fresh.secret != attempt.cached?.token.secret
        {
            return result(of: fresh, homeAccountId: homeAccountId, scope: attempt.lookupScope, attempt.correlationId)
        }
        let (appToken, familyToken) = try await context.cache.read { store in
            let familyId = store.familyId(environments: environments, clientId: clientId)
            return (
                store.refreshToken(homeAccountId: homeAccountId, environments: environments, clientId: clientId),
                familyId.isEmpty
                    ? nil
                    : store.familyRefreshToken(
                        homeAccountId: homeAccountId, environments: environments, familyId: familyId)
            )
        }
        guard let first = appToken ?? familyToken else {
            throw RefreshFailure.noRefreshToken(correlationId: attempt.correlationId)
        }
        do {
            // The app's own refresh token is a family one too when it carries a family id (the
            // unified cache keeps one entry where MSAL for iOS keeps two): `client_mismatch` for
            // it takes the app out of the family as well.
            let usedFamily = appToken == nil || !(first.familyId ?? "").isEmpty
            return try await redeem(first, usedFamily: usedFamily, attempt)
        } catch let failure as RefreshFailure {
            // An app refresh token the server refuses for a reason the user could fix: try the
            // family's, when it is another token.
            if appToken != nil, let familyToken, familyToken.secret != first.secret,
                SilentTokenDecision.mayTryFamilyToken(after: failure)
            {
                return try await redeem(familyToken, usedFamily: true, attempt)
            }
            throw failure
        }
    }

    private func redeem(_ refreshToken: CacheRefreshToken, usedFamily: Bool, _ attempt: RefreshAttempt)
        async throws -> MSALResult
    {
        let request = attempt.request
        let correlationId = attempt.correlationId
        let tokenRequest = TokenRequest.refreshToken(
            refreshToken.secret, redirectURI: context.redirectUri,
            endpoint: attempt.resolved.configuration.tokenEndpoint,
            common: .init(
                clientId: context.clientId, scope: ScopeRules.tokenRequestScopes(attempt.scopes).scopeString,
                requestClientInfo: attempt.resolved.authority.supportsClientInfo, claims: attempt.claims,
                extraQueryParameters: request.extraQueryParameters, resource: request.resource))
        let thumbprints = ThrottlingCache.Thumbprints(
            endpoint: tokenRequest.endpoint, parameters: tokenRequest.parameters)
        if let throttled = context.throttling.throttledFailure(for: thumbprints) {
            Log.warning(
                "Request throttled by the client (Retry-After or repeated failure)", correlationId: correlationId)
            throw RefreshFailure.request(throttled)
        }
        let response: TokenResponse
        do {
            response = try await context.tokenClient.redeem(
                tokenRequest, correlationId: correlationId, homeAccountId: attempt.account.identifier)
        } catch {
            await applySideEffects(.after(error, usedFamilyRefreshToken: usedFamily), refreshToken: refreshToken)
            context.throttling.record(error, for: thumbprints)
            throw RefreshFailure.request(error)
        }
        return try await TokenResponseHandler(context: context).handle(
            response,
            for: .init(
                resolved: attempt.resolved, scopes: attempt.scopes, correlationId: correlationId,
                account: attempt.account, grant: .refreshToken, resource: attempt.request.resource))
    }

    /// The cache changes a refresh failure calls for: `bad_token` deletes the used refresh token;
    /// `client_mismatch` after a family token takes the app out of the family.
    private func applySideEffects(_ action: SubErrorAction, refreshToken: CacheRefreshToken) async {
        let clientId = context.clientId
        do {
            switch action {
            case .none:
                break
            case .deleteRefreshToken:
                _ = try await context.cache.modify { store in
                    store.removeRefreshToken(
                        homeAccountId: refreshToken.homeAccountId, environment: refreshToken.environment,
                        clientId: refreshToken.clientId, secret: refreshToken.secret)
                }
            case .clearFamilyId:
                try await context.cache.modify {
                    $0.clearFamilyId(environment: refreshToken.environment, clientId: clientId)
                }
            case .removeAccount:
                try await context.cache.modify {
                    $0.removeAccount(homeAccountId: refreshToken.homeAccountId, clientId: clientId)
                }
            }
        } catch {
            Log.error("Could not update the cache after a refresh failure: \((error as NSError).code)")
        }
    }

    private func interactionRequired(_ message: String, _ correlationId: UUID?) -> NSError {
        MSALErrors.make(.interactionRequired, message, ErrorDetails(correlationId: correlationId))
    }
}
