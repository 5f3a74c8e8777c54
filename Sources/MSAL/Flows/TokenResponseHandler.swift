import Foundation

/// Turns a successful token response into cache entries and an ``MSALResult``: identifiers from
/// `client_info` (or the id token's `sub` for AD FS and OIDC issuers), the storage environment and
/// realm of the resolved authority, one cache write for everything, then the declined-scope check
/// (tokens are cached first, as MSAL does).
struct TokenResponseHandler {
    let context: ApplicationContext

    /// What the request was.
    struct Request {
        var resolved: ResolvedAuthority
        /// The scopes the caller asked for (without the OIDC scopes).
        var scopes: OrderedScopes
        var correlationId: UUID
        /// The nonce sent on /authorize, to check in the id token; `nil` for other grants.
        var nonce: String?
        /// The account the request was for, when known (refreshes may return no id token): the
        /// answer must name this account (``IdentityCheck``).
        var account: MSALAccount?
        /// Whether the answer is a sign-in (authorization code, device code) or a refresh-token
        /// grant (silent refresh, import): only a sign-in's id token must be unexpired by this
        /// machine's clock.
        var grant: Grant
        /// The RFC 8707 resource indicator the tokens were asked for: the access token is cached
        /// for that resource only (``CacheResourceToken``).
        var resource: String? = nil
        /// The account's `account_source` to record (``BrokerFlow/accountSource`` for the
        /// broker's tokens); `nil` keeps what the cache has.
        var accountSource: String? = nil

        enum Grant {
            case signIn
            case refreshToken
        }
    }

    /// Checks the answer with ``IdentityCheck`` (every grant: algorithm, audience, issuer, nonce,
    /// times, the account named, the `sub`/`oid` cached for it in the tenant), then caches it.
    /// A refused answer changes nothing in the cache.
    ///
    /// - Throws: -50000 with internal -42600 when the answer is refused or identifies no account.
    func handle(_ response: TokenResponse, for request: Request) async throws -> MSALResult {
        let authority = request.resolved.authority
        let correlationId = request.correlationId
        let clientInfo = try response.clientInfo.map { try ClientInfo(raw: $0, correlationId: correlationId) }
        if clientInfo == nil, authority.supportsClientInfo, case .aad = authority.kind {
            throw MSALErrors.make(
                .internalErrorInvalidResponse, "Client info was not returned in the server response.",
                ErrorDetails(correlationId: correlationId))
        }
        let claims = try response.idToken.map { try IDTokenClaims(raw: $0, correlationId: correlationId) }

        let existing = request.account
        guard
            let homeAccountId = clientInfo?.homeAccountId ?? claims?.subject.map({ $0 })
                ?? existing?.identifier
        else {
            throw MSALErrors.make(
                .internalErrorInvalidResponse,
                "The token response identifies no account: it has neither client_info nor an id_token.",
                ErrorDetails(correlationId: correlationId))
        }
        let homeTenant = clientInfo?.utid ?? existing?.homeAccountId?.tenantId
        let environment = request.resolved.cacheEnvironment
        let realm = Self.realm(claims: claims, resolved: request.resolved, homeTenant: homeTenant)
        let clientId = context.clientId
        let lookup = request.resolved.cacheLookupEnvironments
        let (cached, cachedIdToken) = try await context.cache.read { store in
            (
                store.account(homeAccountId: homeAccountId, environments: lookup, realm: realm),
                store.idToken(homeAccountId: homeAccountId, environments: lookup, realm: realm, clientId: clientId)?
                    .secret
            )
        }
        let resolved = request.resolved
        let expected = IdentityCheck.Expectations(
            clientId: clientId,
            expectedIssuer: { resolved.expectedIssuer(tokenIssuer: $0, tenantId: $1) },
            nonce: request.nonce, now: context.now(), rejectsExpired: request.grant == .signIn,
            refreshedAccount: existing?.identifier)
        let evidence = IdentityCheck.Evidence(
            idToken: claims, clientInfoAccount: clientInfo?.homeAccountId,
            cachedIdToken: cachedIdToken.flatMap { try? IDTokenClaims(raw: $0) })
        if let failure = IdentityCheck.check(expected, evidence) {
            let subject: String
            switch failure {
            case .anotherAccount, .subjectChanged, .objectIdChanged: subject = "The token response was rejected"
            default: subject = "The id_token was rejected"
            }
            throw MSALErrors.make(
                .internalErrorInvalidResponse, "\(subject): \(failure). Nothing was cached.",
                ErrorDetails(correlationId: correlationId))
        }
        let username =
            claims?.preferredUsername ?? cached?.username ?? existing?.username
            ?? (authority.b2cPolicy != nil ? "Missing from the token response" : claims?.subject) ?? ""
        var record = TokenResponseRecord(
            clientId: context.clientId, environment: environment, realm: realm, homeAccountId: homeAccountId,
            localAccountId: claims?.uniqueId ?? cached?.localAccountId ?? homeAccountId, username: username)
        record.name = claims?.name ?? cached?.name
        record.givenName = claims?.givenName ?? cached?.givenName
        record.familyName = claims?.familyName ?? cached?.familyName
        record.authorityType = Self.authorityType(authority)
        record.clientInfo = clientInfo?.raw ?? cached?.clientInfo
        record.accountSource = request.accountSource ?? cached?.accountSource
        record.accessToken = response.accessToken
        record.scopes = Self.grantedScopes(response, requested: request.scopes)
        record.tokenType = response.tokenType
        record.expiresOn = response.expiresOnSeconds
        record.extendedExpiresOn = response.extendedExpiresOnSeconds
        record.refreshOn = response.refreshOnSeconds
        record.cachedAt = response.cachedAtSeconds
        record.idToken = response.idToken
        record.refreshToken = response.refreshToken
        record.refreshTokenExpiresOn = response.refreshToken == nil ? nil : response.refreshTokenExpiresOnSeconds
        record.foci = response.familyId
        record.resource = request.resource
        try await context.cache.modify { $0.save(record) }

        let result = try await ResultBuilder(context: context).result(
            homeAccountId: homeAccountId, scope: request.resolved.lookupScope(realm: realm),
            accessToken: response.accessToken, scopes: record.scopes,
            expiresOn: response.expiresOn, extended: false, correlationId: correlationId)
        if let declined = DeclinedScopes.check(
            requested: request.scopes.values, grantedScope: response.scope,
            accessTokenReturned: true)
        {
            throw declined.error(invalidResult: result, correlationId: correlationId)
        }
        return result
    }

    /// The scopes to cache the access token under: the server's `scope` (server case), else the
    /// requested ones; a requested `/.default` scope is kept too, so the next silent request for
    /// it finds the token (Entra answers `/.default` with the resource's individual permissions).
    static func grantedScopes(_ response: TokenResponse, requested: OrderedScopes) -> [String] {
        var scopes = response.scope.map { $0.split(separator: " ").map(String.init) } ?? requested.values
        let present = Set(scopes.map { $0.lowercased() })
        for scope in requested where ScopeRules.isDefaultScope(scope) && !present.contains(scope.lowercased()) {
            scopes.append(scope)
        }
        return scopes
    }

    /// The realm to cache under: the id token's tenant for AAD and CIAM; the home tenant for B2C;
    /// the authority's realm for AD FS and OIDC issuers.
    static func realm(claims: IDTokenClaims?, resolved: ResolvedAuthority, homeTenant: String?) -> String {
        switch resolved.authority.kind {
        case .aad, .ciam:
            return claims?.tenantId?.lowercased() ?? ApplicationContext.cacheRealm(resolved, homeTenant: homeTenant)
        case .b2c, .adfs, .oidc:
            return ApplicationContext.cacheRealm(resolved, homeTenant: homeTenant)
        }
    }

    static func authorityType(_ authority: Authority) -> String {
        switch authority.kind {
        case .aad, .b2c, .ciam: "MSSTS"
        case .adfs: "ADFS"
        case .oidc: "Other"
        }
    }
}
