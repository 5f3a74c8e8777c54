import Foundation

/// `acquireToken`: authorization code with PKCE in the browser or a custom web view, the code
/// redeemed at the token endpoint, the id token checked (audience, nonce, expiry), everything
/// cached.
struct InteractiveFlow {
    let context: ApplicationContext

    struct Request {
        var scopes: [String]
        var extraScopesToConsent: [String]
        var account: MSALAccount?
        var loginHint: String?
        var domainHint: String?
        var promptType: MSALPromptType
        var authority: MSALAuthority?
        var claims: MSALClaimsRequest?
        var correlationId: UUID
        var extraQueryParameters: [String: String]?
        var webview: WebviewSettings
        /// The RFC 8707 resource indicator to send, or `nil`.
        var resource: String? = nil
    }

    func run(_ request: Request) async throws -> MSALResult {
        let correlationId = request.correlationId
        let (authority, knownAuthorities) = try context.requestAuthority(
            request.authority, account: request.account, retarget: false, correlationId: correlationId)
        let scopes = try ScopeRules.requestScopes(
            request.scopes, clientId: context.clientId, authority: authority, correlationId: correlationId)
        let resolved = try await context.resolver.resolve(
            authority, knownAuthorities: knownAuthorities, correlationId: correlationId)
        let claims = MSALClaimsRequest.merged(request.claims, capabilities: context.capabilities)
        try ResourceIndicator.check(request.resource, for: authority, correlationId: correlationId)
        if let brokered = BrokerFlow(context: context, authority: authority),
            let result = try await brokered.interactive(
                scopes: scopes, resolved: resolved, account: request.account, loginHint: request.loginHint,
                prompt: request.promptType, claims: claims, correlationId: correlationId)
        {
            return result
        }

        let web = try WebAuthentication(
            settings: request.webview, configuredRedirectURI: context.redirectUri, correlationId: correlationId)
        var authorize: AuthorizationRequest
        do {
            authorize = try AuthorizationRequest(
                authorizeEndpoint: resolved.configuration.authorizationEndpoint, clientId: context.clientId,
                redirectURI: web.redirectURI,
                scope: ScopeRules.authorizeRequestScopes(scopes, extraScopesToConsent: request.extraScopesToConsent)
                    .scopeString,
                correlationId: correlationId)
        } catch {
            web.abandon()
            throw error
        }
        authorize.loginHint = request.account?.username ?? request.loginHint
        authorize.promptType = try await promptType(request)
        authorize.claims = claims
        authorize.resource = request.resource
        authorize.sendClientInfo = authority.supportsClientInfo
        authorize.accountObjectId = request.account?.homeAccountId?.objectId
        authorize.accountTenantId = request.account?.homeAccountId?.tenantId
        authorize.domainHint = request.domainHint
        authorize.instanceAware = context.multipleCloudsSupported
        authorize.extraQueryParameters = AuthorizationRequest.orderedParameters(request.extraQueryParameters)
        authorize.responseMode = RedirectResponseMode.choose(
            supportedByServer: resolved.configuration.responseModesSupported, systemBrowser: web.usesSystemBrowser)

        let response = try await web.authorize(authorize)

        var tokenEndpoint = resolved.configuration.tokenEndpoint
        var resolvedForCache = resolved
        if let cloudHost = response.cloudInstanceHostName, cloudHost != resolved.networkAuthority.environment {
            let cloudAuthority = try authority.withEnvironment(cloudHost, correlationId: correlationId)
            resolvedForCache = try await context.resolver.resolve(
                cloudAuthority, knownAuthorities: context.knownAuthorities, correlationId: correlationId)
            tokenEndpoint = resolvedForCache.configuration.tokenEndpoint
        }
        let tokenRequest = TokenRequest.authorizationCode(
            response.code, codeVerifier: authorize.pkce.verifier, redirectURI: web.redirectURI,
            endpoint: tokenEndpoint,
            common: .init(
                clientId: context.clientId, scope: ScopeRules.tokenRequestScopes(scopes).scopeString,
                requestClientInfo: authority.supportsClientInfo, claims: claims,
                extraQueryParameters: request.extraQueryParameters, resource: request.resource))
        let tokens: TokenResponse
        do {
            tokens = try await context.tokenClient.redeem(tokenRequest, correlationId: correlationId)
        } catch {
            throw MSALErrors.error(for: error)
        }
        let result = try await TokenResponseHandler(context: context).handle(
            tokens,
            for: .init(
                resolved: resolvedForCache, scopes: scopes, correlationId: correlationId, nonce: authorize.nonce,
                account: nil, grant: .signIn, resource: request.resource,
                accountSource: BrokerFlow.AccountSource.authorizationCode))
        context.throttling.userInteractionSucceeded()
        return result
    }

    /// The prompt to send: the caller's, except that an account signed out of this app must
    /// enter its credentials again (`login`), unless consent was asked for (as MSAL does).
    private func promptType(_ request: Request) async throws -> MSALPromptType {
        guard let homeAccountId = request.account?.identifier, request.promptType != .consent else {
            return request.promptType
        }
        let clientId = context.clientId
        let signedOut = try await context.cache.read {
            $0.signInState(clientId: clientId, homeAccountId: homeAccountId) == .signedOut
        }
        return signedOut ? .login : request.promptType
    }
}
