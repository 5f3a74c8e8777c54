import Foundation
import MSALNative
import MSALTestSupportNative

/// What a successful grant hands to ``EmulatorEngine/issueTokens(_:_:)``.
struct TokenIssue {
    var subject: GrantSubject
    var scopes: [String]
    /// Scopes declined for this grant on top of the user's remembered declines.
    var declinedScopes: [String] = []
    var nonce: String?
    var clientInfo: Bool
    /// The refresh token to hand back again instead of a new one (rotation `.reuse`).
    var reusedRefreshToken: String?
    /// An injected change to the id token (``EmulatorFault/alterIDToken(_:)``).
    var idTokenAlteration: EmulatorFault.IDTokenAlteration?
}

extension EmulatorEngine {
    /// Issues access, ID and refresh tokens for a grant the caller already checked, and answers
    /// with Entra's token response.
    func issueTokens(_ context: EmulatorRequestContext, _ issue: TokenIssue) -> HTTPServerResponse {
        let subject = issue.subject
        let prepared = state.withLock {
            state -> Result<(EmulatorUser, EmulatorClient, EmulatorScopes, Bool), EntraErrorResponse> in
            guard let user = state.user(named: subject.username), let client = state.client(subject.clientId) else {
                return .failure(
                    EntraErrorResponse(
                        error: "invalid_grant", code: 50034,
                        message: "The user account \(subject.username) does not exist in the directory."))
            }
            if let problem = state.registrationProblem(issue.scopes, client: client) { return .failure(problem) }
            if let grantType = context.parameters["grant_type"],
                grantType == "refresh_token" || grantType == "password",
                state.needsConsent(issue.scopes, username: user.username, client: client)
            {
                return .failure(EmulatorScopes.consentRequired(client: client))
            }
            let remembered = state.declinedConsents[EmulatorState.consentKey(user.username, client.clientId)] ?? []
            let declined = remembered.union(issue.declinedScopes.map(EmulatorScopes.key))
            let isB2C = state.tenant(id: subject.tenantId)?.kind == .b2c
            return EmulatorScopes.grant(issue.scopes, client: client, declined: declined).map {
                (user, client, $0, isB2C)
            }
        }
        let user: EmulatorUser
        let client: EmulatorClient
        let scopes: EmulatorScopes
        let isB2C: Bool
        switch prepared {
        case .failure(let error): return context.errorResponse(error)
        case .success(let value): (user, client, scopes, isB2C) = value
        }
        let lifetimes = state.withLock { $0.lifetimes }
        let now = context.now
        let iat = Int(now.timeIntervalSince1970)
        let isADFS = context.route.style == .adfs
        let issuerURL = issuer(context, tenantId: subject.tenantId, b2c: isB2C)
        let objectId = user.objectId(inTenant: subject.tenantId) ?? user.objectId
        let pairwiseSubject = isB2C ? objectId : Base64URL.encode(SHA256.hash("\(objectId)|\(client.clientId)"))
        var body: [String: Any] = [
            "token_type": "Bearer",
            "scope": isB2C || context.route.style == .adfs ? scopes.scopeField : scopes.entraScopeField,
            "expires_in": lifetimes.accessToken,
            "ext_expires_in": lifetimes.extendedAccessToken,
        ]
        if let refreshIn = lifetimes.refreshIn { body["refresh_in"] = refreshIn }
        // An RFC 8707 resource indicator on the token request names the audience, as an OpenID
        // Connect issuer or AD FS makes it (MSAL sends none to Entra's v2.0 endpoints).
        let indicated = context.request.formValue("resource")
        var accessClaims: [String: Any] = [
            "aud": indicated ?? scopes.resource, "iss": issuerURL, "iat": iat, "nbf": iat,
            "exp": iat + lifetimes.accessToken,
            "oid": objectId, "tid": subject.tenantId, "sub": pairwiseSubject, "azp": client.clientId,
            "appid": client.clientId, "name": user.displayName, "preferred_username": user.username,
            "ver": "2.0", "uti": randomToken(bytes: 16),
        ]
        if !scopes.names.isEmpty { accessClaims["scp"] = scopes.names.joined(separator: " ") }
        body["access_token"] = sign(accessClaims)
        var forgedClientInfo: String?
        if scopes.oidcScopes.contains("openid") {
            var idClaims: [String: Any] = [
                "aud": client.clientId, "iss": issuerURL, "iat": iat, "nbf": iat, "exp": iat + lifetimes.idToken,
                "sub": pairwiseSubject, "name": user.displayName,
            ]
            if isADFS {
                idClaims["upn"] = user.username
                idClaims["unique_name"] = user.username
                idClaims["ver"] = "1.0"
            } else {
                idClaims["oid"] = objectId
                idClaims["tid"] = subject.tenantId
                idClaims["preferred_username"] = user.username
                idClaims["ver"] = "2.0"
            }
            if isB2C, let policy = subject.policy {
                idClaims["tfp"] = policy
                idClaims["emails"] = [user.username]
            }
            if let nonce = issue.nonce { idClaims["nonce"] = nonce }
            var forged = ForgedIDToken()
            if let alteration = issue.idTokenAlteration { forged.apply(alteration, to: &idClaims, iat: iat) }
            body["id_token"] = sign(
                idClaims, claimRewrites: forged.claims, headerRewrites: forged.header, unsigned: forged.unsigned)
            forgedClientInfo = forged.clientInfo
        }
        if issue.clientInfo && !isADFS {
            let uid = isB2C ? "\(user.objectId)-\((subject.policy ?? "").lowercased())" : user.objectId
            let info = ["uid": uid, "utid": user.homeTenantId]
            let data = (try? JSONSerialization.data(withJSONObject: info, options: [.sortedKeys])) ?? Data()
            body["client_info"] = Base64URL.encode(data)
        }
        if let forgedClientInfo { body["client_info"] = forgedClientInfo }
        if let familyId = client.familyId { body["foci"] = familyId }
        if scopes.oidcScopes.contains("offline_access") {
            let token = issue.reusedRefreshToken ?? randomToken(bytes: 48, prefix: "0.A")
            state.withLock { state in
                let expiresAt = now.addingTimeInterval(TimeInterval(lifetimes.refreshToken))
                if issue.reusedRefreshToken != nil {
                    state.refreshTokens[token]?.expiresAt = expiresAt
                } else {
                    state.refreshTokens[token] = RefreshTokenGrant(
                        subject: subject, familyId: client.familyId, expiresAt: expiresAt)
                }
            }
            body["refresh_token"] = token
            if lifetimes.statesRefreshTokenExpiry { body["refresh_token_expires_in"] = lifetimes.refreshToken }
        }
        return .json(body, headers: ["Pragma": "no-cache"])
    }

    /// Signs `claims` as an RS256 JWT with the emulator's key; members of `claimRewrites` and
    /// `headerRewrites` are spliced in as raw JSON text (`nil` removes one). `unsigned` makes an
    /// `alg: none` token with an empty signature instead.
    func sign(
        _ claims: [String: Any], claimRewrites: [String: String?] = [:], headerRewrites: [String: String?] = [:],
        unsigned: Bool = false
    ) -> String {
        let header: [String: Any] =
            unsigned ? ["alg": "none", "typ": "JWT"] : ["alg": "RS256", "typ": "JWT", "kid": signingKey.keyID]
        let headerData = EmulatorRawJSON.splice(header, headerRewrites)
        let payloadData = EmulatorRawJSON.splice(claims, claimRewrites)
        let input = "\(Base64URL.encode(Array(headerData))).\(Base64URL.encode(Array(payloadData)))"
        let signature =
            unsigned ? [] : (try? signingKey.privateKey.sign(Array(input.utf8), algorithm: "RS256")) ?? []
        return "\(input).\(Base64URL.encode(signature))"
    }
}

/// What ``EmulatorFault/IDTokenAlteration`` values do to one id token, gathered before it is signed.
struct ForgedIDToken {
    var claims: [String: String?] = [:]
    var header: [String: String?] = [:]
    var unsigned = false
    var clientInfo: String?

    mutating func apply(_ alteration: EmulatorFault.IDTokenAlteration, to idClaims: inout [String: Any], iat: Int) {
        switch alteration {
        case .nonce(let nonce): idClaims["nonce"] = nonce
        case .audience(let audience): idClaims["aud"] = audience
        case .issuer(let issuer): idClaims["iss"] = issuer
        case .expired(let secondsAgo):
            idClaims["exp"] = iat - secondsAgo
            idClaims["iat"] = iat - secondsAgo - 3600
            idClaims["nbf"] = iat - secondsAgo - 3600
        case .unsigned: unsigned = true
        case .header(let members): header.merge(members) { $1 }
        case .claims(let members): claims.merge(members) { $1 }
        case .clientInfo(let uid, let utid): clientInfo = EmulatorFault.clientInfo(uid: uid, utid: utid)
        case .all(let alterations):
            for alteration in alterations { apply(alteration, to: &idClaims, iat: iat) }
        }
    }
}
