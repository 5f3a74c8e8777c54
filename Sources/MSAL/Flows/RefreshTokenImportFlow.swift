import Foundation

/// Imports a refresh token obtained elsewhere (ADAL, another tool): redeems it for `scopes` and
/// caches the account and tokens like any sign-in.
struct RefreshTokenImportFlow {
    let context: ApplicationContext

    func run(
        refreshToken: String, scopes requested: [String], authority requestedAuthority: MSALAuthority?,
        correlationId: UUID
    ) async throws -> MSALResult {
        guard !refreshToken.isEmpty else {
            throw MSALErrors.make(
                .internalErrorInvalidParameter, "The refresh token to import is empty.",
                ErrorDetails(correlationId: correlationId))
        }
        let (authority, knownAuthorities) = try context.requestAuthority(
            requestedAuthority, account: nil, retarget: false, correlationId: correlationId)
        let scopes = try ScopeRules.requestScopes(
            requested, clientId: context.clientId, authority: authority, correlationId: correlationId)
        let resolved = try await context.resolver.resolve(
            authority, knownAuthorities: knownAuthorities, correlationId: correlationId)
        let request = TokenRequest.refreshToken(
            refreshToken, redirectURI: nil, endpoint: resolved.configuration.tokenEndpoint,
            common: .init(
                clientId: context.clientId, scope: ScopeRules.tokenRequestScopes(scopes).scopeString,
                requestClientInfo: authority.supportsClientInfo,
                claims: MSALClaimsRequest.merged(nil, capabilities: context.capabilities)))
        let response: TokenResponse
        do {
            response = try await context.tokenClient.redeem(request, correlationId: correlationId)
        } catch {
            throw MSALErrors.error(for: error)
        }
        return try await TokenResponseHandler(context: context).handle(
            response, for: .init(resolved: resolved, scopes: scopes, correlationId: correlationId, grant: .refreshToken)
        )
    }
}
