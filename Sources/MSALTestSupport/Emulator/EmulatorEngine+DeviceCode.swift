import Foundation
import MSALNative

extension EmulatorEngine {
    /// `POST /{tenant}/oauth2/v2.0/devicecode`: a device code and user code for RFC 8628.
    func deviceCode(_ context: EmulatorRequestContext) -> HTTPServerResponse {
        let parameters = context.parameters
        let route = context.route
        let checked = state.withLock { state -> Result<(EmulatorClient, Int, Int), EntraErrorResponse> in
            EmulatorAudience.resolve(route, in: state).flatMap { _ in
                guard let clientId = parameters["client_id"] else { return .failure(Self.missing("client_id")) }
                guard let client = state.client(clientId) else {
                    return .failure(Self.unknownClient(clientId, route: route))
                }
                return .success((client, state.lifetimes.deviceCode, state.deviceCodeInterval))
            }
        }
        let client: EmulatorClient
        let lifetime: Int
        let interval: Int
        switch checked {
        case .failure(let error): return context.errorResponse(error)
        case .success(let value): (client, lifetime, interval) = value
        }
        guard let scope = parameters["scope"], !scope.isEmpty else {
            return context.errorResponse(Self.missing("scope"))
        }
        let requested = scope.split(separator: " ").map(String.init)
        if let problem = state.withLock({ $0.registrationProblem(requested, client: client) }) {
            return context.errorResponse(problem)
        }
        let deviceCode = randomToken(bytes: 48, prefix: "DAQABAAEAAA")
        let userCode = Self.userCode()
        state.withLock { state in
            state.deviceCodes[deviceCode] = DeviceCodeGrant(
                deviceCode: deviceCode, userCode: userCode, clientId: client.clientId,
                scopes: requested, route: route,
                expiresAt: context.now.addingTimeInterval(TimeInterval(lifetime)))
        }
        return .json([
            "user_code": userCode,
            "device_code": deviceCode,
            "verification_uri": deviceVerificationURI,
            "expires_in": lifetime,
            "interval": interval,
            "message": "To sign in, open \(deviceVerificationURI) in a web browser and enter the code \(userCode) "
                + "to authenticate.",
        ])
    }

    /// Nine characters from an alphabet without look-alikes (`FRWQDE7YL`).
    private static func userCode() -> String {
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        let bytes = (try? SecureRandom.bytes(9)) ?? (0..<9).map { _ in UInt8.random(in: 0...255) }
        return String(bytes.map { alphabet[Int($0) % alphabet.count] })
    }

    /// The device-code grant: pending, slow down, declined, expired, or the approved user's tokens.
    func redeemDeviceCode(_ context: EmulatorRequestContext, client: EmulatorClient)
        -> Result<TokenIssue, EntraErrorResponse>
    {
        guard let code = context.parameters["device_code"] ?? context.parameters["code"] else {
            return .failure(Self.missing("device_code"))
        }
        return state.withLock { state -> Result<TokenIssue, EntraErrorResponse> in
            guard var grant = state.deviceCodes[code], grant.clientId.lowercased() == client.clientId.lowercased()
            else {
                return .failure(
                    EntraErrorResponse(
                        error: "invalid_grant", code: 70000,
                        message: "The provided device code is malformed, unknown, or was issued to another client."))
            }
            defer { state.deviceCodes[code] = grant }
            let previousPoll = grant.lastPollAt
            grant.lastPollAt = context.now
            if grant.status == .redeemed {
                return .failure(
                    EntraErrorResponse(
                        error: "invalid_grant", code: 54005,
                        message: "The device code was already redeemed; request a new one."))
            }
            if grant.expiresAt <= context.now {
                return .failure(
                    EntraErrorResponse(
                        error: "expired_token", code: 70019,
                        message: "Verification code expired. Have the user retry the sign-in."))
            }
            switch grant.status {
            case .declined:
                return .failure(
                    EntraErrorResponse(
                        error: "authorization_declined", code: 65004,
                        message: "The end user declined the authorization request."))
            case .approved(let username):
                guard let user = state.user(named: username),
                    let audience = try? EmulatorAudience.resolve(grant.route, in: state).get(),
                    let tenantId = audience.tenantId(for: user, in: state)
                else {
                    return .failure(
                        EntraErrorResponse(
                            error: "invalid_grant", code: 50020,
                            message: "User account '\(username)' cannot sign in to tenant '\(grant.route.tenant)'."))
                }
                grant.status = .redeemed
                let subject = GrantSubject(
                    username: user.username, clientId: client.clientId, tenantId: tenantId, policy: grant.route.policy)
                return .success(
                    TokenIssue(
                        subject: subject, scopes: grant.scopes, declinedScopes: grant.declinedScopes,
                        clientInfo: false))
            case .pending, .redeemed:
                let interval = TimeInterval(state.deviceCodeInterval)
                if interval > 0, let previousPoll, context.now.timeIntervalSince(previousPoll) < interval {
                    return .failure(
                        EntraErrorResponse(
                            error: "slow_down", code: 70016,
                            message: "The client is polling too fast; wait the interval between polls, plus 5 seconds.")
                    )
                }
                return .failure(
                    EntraErrorResponse(
                        error: "authorization_pending", code: 70016,
                        message: "OAuth 2.0 device flow error. Authorization is pending. Continue polling."))
            }
        }
    }
}
