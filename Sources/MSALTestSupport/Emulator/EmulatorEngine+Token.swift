import Foundation
import MSALNative

extension EmulatorEngine {
    /// `POST /{tenant}/oauth2/v2.0/token`: the authorization-code, refresh-token, device-code and
    /// password grants.
    func token(_ context: EmulatorRequestContext, directive: FaultDirective) -> HTTPServerResponse {
        let parameters = context.parameters
        let route = context.route
        guard context.request.method == "POST" else {
            return context.errorResponse(
                EntraErrorResponse(
                    error: "invalid_request", code: 900561,
                    message: "The endpoint only accepts POST requests. Received a \(context.request.method) request."))
        }
        let resolved = state.withLock { state -> Result<(EmulatorAudience, EmulatorClient), EntraErrorResponse> in
            EmulatorAudience.resolve(route, in: state).flatMap { audience in
                guard let clientId = parameters["client_id"] else {
                    return .failure(Self.missing("client_id"))
                }
                guard let client = state.client(clientId) else {
                    return .failure(Self.unknownClient(clientId, route: route))
                }
                return .success((audience, client))
            }
        }
        let audience: EmulatorAudience
        let client: EmulatorClient
        switch resolved {
        case .failure(let error): return context.errorResponse(error)
        case .success(let value): (audience, client) = value
        }
        let outcome: Result<TokenIssue, EntraErrorResponse>
        switch parameters["grant_type"] {
        case EmulatorGrantType.authorizationCode.rawValue?:
            outcome = redeemCode(context, client: client)
        case EmulatorGrantType.refreshToken.rawValue?:
            outcome = redeemRefreshToken(context, client: client, audience: audience)
        case EmulatorGrantType.deviceCode.rawValue?, "device_code"?:
            outcome = redeemDeviceCode(context, client: client)
        case EmulatorGrantType.password.rawValue?:
            outcome = redeemPassword(context, client: client, audience: audience)
        case nil:
            outcome = .failure(Self.missing("grant_type"))
        case let other?:
            outcome = .failure(
                EntraErrorResponse(
                    error: "unsupported_grant_type", code: 70003,
                    message: "The app requested an unsupported grant type '\(other)'."))
        }
        switch outcome {
        case .failure(let error):
            return context.errorResponse(error)
        case .success(var issue):
            issue.declinedScopes += directive.declinedScopes
            issue.idTokenAlteration = directive.idTokenAlteration
            issue.clientInfo = parameters["client_info"] == "1"
            return issueTokens(context, issue)
        }
    }

    static func missing(_ name: String) -> EntraErrorResponse {
        EntraErrorResponse(
            error: "invalid_request", code: 900144,
            message: "The request body must contain the following parameter: '\(name)'.")
    }

    private func requestedScopes(_ context: EmulatorRequestContext) -> [String] {
        (context.parameters["scope"] ?? "").split(separator: " ").map(String.init)
    }

    private func redeemCode(_ context: EmulatorRequestContext, client: EmulatorClient)
        -> Result<TokenIssue, EntraErrorResponse>
    {
        let parameters = context.parameters
        guard let code = parameters["code"] else { return .failure(Self.missing("code")) }
        let scopes = requestedScopes(context)
        return state.withLock { state -> Result<TokenIssue, EntraErrorResponse> in
            guard let grant = state.codes[code] else {
                return .failure(
                    EntraErrorResponse(
                        error: "invalid_grant", code: 9_002_313,
                        message: "Invalid request. The provided authorization code is malformed or was not issued "
                            + "by this emulator."))
            }
            guard !grant.redeemed else {
                return .failure(
                    EntraErrorResponse(
                        error: "invalid_grant", code: 54005,
                        message: "OAuth2 Authorization code was already redeemed, please retry with a new valid code "
                            + "or use an existing refresh token."))
            }
            guard grant.expiresAt > context.now else {
                return .failure(
                    EntraErrorResponse(
                        error: "invalid_grant", code: 70008,
                        message: "The provided authorization code or refresh token has expired due to inactivity. "
                            + "Send a new interactive authorization request for this user and resource."))
            }
            guard grant.subject.clientId.lowercased() == client.clientId.lowercased() else {
                return .failure(
                    EntraErrorResponse(
                        error: "invalid_grant", code: 70000,
                        message: "The provided authorization code was issued to a different client."))
            }
            guard parameters["redirect_uri"] == grant.redirectURI else {
                return .failure(
                    EntraErrorResponse(
                        error: "invalid_grant", code: 50011,
                        message: "The redirect URI '\(parameters["redirect_uri"] ?? "")' specified in the request "
                            + "does not match the redirect URI used to obtain the authorization code."))
            }
            if let challenge = grant.codeChallenge {
                guard let verifier = parameters["code_verifier"] else { return .failure(Self.missing("code_verifier")) }
                let computed =
                    grant.codeChallengeMethod == "plain" ? verifier : Base64URL.encode(SHA256.hash(verifier))
                guard ConstantTime.equals(computed, challenge) else {
                    return .failure(
                        EntraErrorResponse(
                            error: "invalid_grant", code: 501481,
                            message: "The Code_Verifier does not match the code_challenge supplied in the "
                                + "authorization request."))
                }
            }
            state.codes[code]?.redeemed = true
            return .success(
                TokenIssue(
                    subject: grant.subject, scopes: scopes.isEmpty ? grant.scopes : scopes,
                    declinedScopes: grant.declinedScopes, nonce: grant.nonce, clientInfo: false))
        }
    }

    private func redeemRefreshToken(
        _ context: EmulatorRequestContext,
        client: EmulatorClient,
        audience: EmulatorAudience
    ) -> Result<TokenIssue, EntraErrorResponse> {
        guard let token = context.parameters["refresh_token"] else { return .failure(Self.missing("refresh_token")) }
        let scopes = requestedScopes(context)
        return state.withLock { state -> Result<TokenIssue, EntraErrorResponse> in
            guard let grant = state.refreshTokens[token] else {
                return .failure(
                    EntraErrorResponse(
                        error: "invalid_grant", code: 9_002_313,
                        message: "Invalid request. The refresh token is malformed or was not issued by this emulator.",
                        suberror: "bad_token"))
            }
            guard !grant.revoked else {
                return .failure(
                    EntraErrorResponse(
                        error: "invalid_grant", code: 50173,
                        message: "The provided grant has expired due to it being revoked, a fresh auth token is "
                            + "needed. The user might have changed or reset their password."))
            }
            guard grant.expiresAt > context.now else {
                return .failure(
                    EntraErrorResponse(
                        error: "invalid_grant", code: 700082,
                        message: "The refresh token has expired due to inactivity. The token was issued on "
                            + "\(EntraErrorResponse.timestamp(grant.expiresAt)) and was inactive for too long."))
            }
            let sameClient = grant.subject.clientId.lowercased() == client.clientId.lowercased()
            let sameFamily = grant.familyId != nil && grant.familyId == client.familyId
            guard sameClient || sameFamily else {
                return .failure(
                    EntraErrorResponse(
                        error: "invalid_grant", code: 70000,
                        message: "The refresh token was issued to a different client and cannot be redeemed by "
                            + "'\(client.clientId)'.",
                        suberror: "client_mismatch"))
            }
            guard let user = state.user(named: grant.subject.username) else {
                return .failure(
                    EntraErrorResponse(
                        error: "invalid_grant", code: 50034,
                        message: "The user account \(grant.subject.username) does not exist in the directory.",
                        suberror: "user_account_deleted"))
            }
            var subject = grant.subject
            subject.clientId = client.clientId
            if case .tenant = audience {
                guard let tenantId = audience.tenantId(for: user, in: state) else {
                    return .failure(audience.userNotInTenant(user, route: context.route))
                }
                subject.tenantId = tenantId
            } else if subject.policy == nil {
                subject.tenantId = audience.tenantId(for: user, in: state) ?? subject.tenantId
            }
            var issue = TokenIssue(subject: subject, scopes: scopes, clientInfo: false)
            switch state.rotation {
            case .reuse: issue.reusedRefreshToken = token
            case .rotate: break
            case .rotateAndRevokeOld: state.refreshTokens[token]?.revoked = true
            }
            return .success(issue)
        }
    }

    private func redeemPassword(
        _ context: EmulatorRequestContext,
        client: EmulatorClient,
        audience: EmulatorAudience
    ) -> Result<TokenIssue, EntraErrorResponse> {
        let parameters = context.parameters
        guard let username = parameters["username"] else { return .failure(Self.missing("username")) }
        guard let password = parameters["password"] else { return .failure(Self.missing("password")) }
        let scopes = requestedScopes(context)
        return state.withLock { state -> Result<TokenIssue, EntraErrorResponse> in
            guard let user = state.user(named: username), ConstantTime.equals(user.password, password) else {
                return .failure(
                    EntraErrorResponse(
                        error: "invalid_grant", code: 50126,
                        message: "Error validating credentials due to invalid username or password."))
            }
            guard let tenantId = audience.tenantId(for: user, in: state) else {
                return .failure(audience.userNotInTenant(user, route: context.route))
            }
            let subject = GrantSubject(
                username: user.username, clientId: client.clientId, tenantId: tenantId, policy: context.route.policy)
            return .success(TokenIssue(subject: subject, scopes: scopes, clientInfo: false))
        }
    }
}
