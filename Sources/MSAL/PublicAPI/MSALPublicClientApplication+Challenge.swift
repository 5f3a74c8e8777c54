import Foundation
import MSALNative

extension MSALPublicClientApplication {
    /// Gets a token that answers a protected resource's challenge (its `401` with
    /// `WWW-Authenticate`), without showing anything: a silent request with the challenge's
    /// claims (merged with the app's client capabilities), scopes and tenant.
    ///
    /// ```swift
    /// let challenge = try MSALWWWAuthenticateParameters(headerValues: wwwAuthenticate)
    /// let parameters = MSALSilentTokenParameters(scopes: ["https://graph.microsoft.com/.default"], account: account)
    /// do {
    ///     let result = try await application.acquireToken(forChallenge: challenge, with: parameters)
    ///     // Call the resource again with result.authorizationHeader.
    /// } catch let error as NSError where error.code == MSALError.interactionRequired.rawValue {
    ///     let interactive = MSALInteractiveTokenParameters(scopes: parameters.scopes, webviewParameters: webview)
    ///     if let claims = error.userInfo[MSALClaimsChallengeKey] as? String {
    ///         interactive.claimsRequest = try MSALClaimsRequest(jsonString: claims)
    ///     }
    ///     let result = try await application.acquireToken(with: interactive)
    /// }
    /// ```
    ///
    /// - The scopes are the parameters', else the challenge's `scope`.
    /// - The challenge's claims replace the parameters' ``MSALTokenParameters/claimsRequest``;
    ///   with claims, or with `error="invalid_token"` or `"insufficient_claims"`, the cached
    ///   access token is skipped and the refresh token redeemed (the resource refused the token
    ///   the cache holds). The new token is cached like any other.
    /// - The parameters' authority is used when set. Else a Microsoft Entra `authorization_uri`
    ///   on the host of the configured authority selects its tenant; one on another host is
    ///   ignored, so a resource cannot choose where the account's refresh token goes.
    ///
    /// - Throws: -50002 (``MSALError/interactionRequired``) when the user must sign in again, with
    ///   the challenge's claims under ``MSALClaimsChallengeKey`` for the interactive call; -50000
    ///   with -42000 when neither the parameters nor the challenge name a scope; otherwise as
    ///   ``acquireTokenSilent(with:)``.
    public func acquireToken(
        forChallenge challenge: MSALWWWAuthenticateParameters, with parameters: MSALSilentTokenParameters
    ) async throws -> MSALResult {
        let values = parameters.shared.withLock { $0 }
        let correlationId = values.correlationId ?? CorrelationID.make()
        let plan: ChallengeTokenPlan
        switch ChallengeTokenDecision.plan(
            claims: challenge.claims, challengeScopes: challenge.scopes, challengeAuthority: challenge.authority,
            error: challenge.error, requestedScopes: values.scopes, requestedAuthority: values.authority?.model,
            configured: context.defaultAuthority)
        {
        case .success(let value): plan = value
        case .failure(.noScopes):
            throw MSALErrors.make(
                .internalErrorInvalidParameter,
                "Neither the parameters nor the challenge name a scope. Pass the resource's scopes, such as "
                    + "<resource>/.default.",
                ErrorDetails(correlationId: correlationId))
        }
        let claims: MSALClaimsRequest?
        if let text = plan.claims {
            claims = try MSALClaimsRequest(jsonString: text)
        } else {
            claims = values.claimsRequest
        }
        let request = SilentFlow.Request(
            scopes: plan.scopes, account: values.account, loginHint: parameters.loginHint,
            authority: plan.authority.map(MSALAuthority.wrap) ?? values.authority, claims: claims,
            correlationId: correlationId, extraQueryParameters: values.extraQueryParameters,
            forceRefresh: parameters.forceRefresh || (plan.skipCachedToken && claims == nil),
            resource: values.resourceIndicator)
        do {
            return try await SilentFlow(context: context).run(request)
        } catch {
            let classified = MSALErrors.classify(error, correlationId: correlationId)
            guard classified.domain == MSALErrorDomain, classified.code == MSALError.interactionRequired.rawValue,
                let text = plan.claims
            else { throw classified }
            throw MSALErrors.adding([MSALClaimsChallengeKey: text], to: classified)
        }
    }

    /// The completion-block form of ``acquireToken(forChallenge:with:)``. The block runs on
    /// ``MSALTokenParameters/completionBlockQueue`` when set, else on the thread that produced the
    /// result.
    public func acquireToken(
        forChallenge challenge: MSALWWWAuthenticateParameters, with parameters: MSALSilentTokenParameters,
        completionBlock: @escaping MSALCompletionBlock
    ) {
        let queue = parameters.completionBlockQueue
        let box = CompletionBox(block: completionBlock)
        Task {
            do {
                let result = try await acquireToken(forChallenge: challenge, with: parameters)
                Self.complete(queue) { box.block(result, nil) }
            } catch {
                let nsError = error as NSError
                Self.complete(queue) { box.block(nil, nsError) }
            }
        }
    }
}
