import Foundation
import MSALNative

/// Sign-in, silent calls and sign-out through the Linux broker (``MSALBrokerConnection``), for
/// Microsoft Entra ID authorities only. The broker's tokens are checked and cached as the token
/// endpoint's are (``TokenResponseHandler``), without a refresh token: a silent call asks the
/// broker again once the access token expired. Each method returns `nil` when no broker answers,
/// and the caller then runs the library's own flow.
struct BrokerFlow {
    let context: ApplicationContext
    let broker: any MSALBrokerConnection

    /// The redirect URI brokered apps send.
    static let redirectURI = "https://login.microsoftonline.com/common/oauth2/nativeclient"

    /// The flow for `authority`, or `nil` when the broker is off or does not serve it (B2C, CIAM,
    /// AD FS and other OpenID Connect authorities never go through it).
    init?(context: ApplicationContext, authority: Authority) {
        guard let broker = context.broker, case .aad = authority.kind else { return nil }
        self.context = context
        self.broker = broker
    }

    /// `acquireTokenInteractively`.
    func interactive(
        scopes: OrderedScopes, resolved: ResolvedAuthority, account: MSALAccount?, loginHint: String?,
        prompt: MSALPromptType, claims: String?, correlationId: UUID
    ) async throws -> MSALResult? {
        var parameters = authParameters(scopes: scopes, resolved: resolved, account: account, claims: claims)
        if let username = account?.username ?? loginHint { parameters["username"] = username }
        if prompt != .promptIfNecessary { parameters["prompt"] = Self.promptName(prompt) }
        var request: [String: Any] = ["authParameters": parameters]
        if let account { request["account"] = Self.accountObject(account) }
        guard let reply = try await call("acquireTokenInteractively", request, interactive: true, correlationId)
        else { return nil }
        return try await tokenResult(
            reply, scopes: scopes, resolved: resolved, account: account, grant: .signIn, correlationId)
    }

    /// `acquireTokenSilently` for `account`.
    func silent(
        scopes: OrderedScopes, resolved: ResolvedAuthority, account: MSALAccount, claims: String?, correlationId: UUID
    ) async throws -> MSALResult? {
        var parameters = authParameters(scopes: scopes, resolved: resolved, account: account, claims: claims)
        parameters["username"] = account.username ?? ""
        // From broker 2.0.2 the account is read inside authParameters; older ones read it outside.
        let request: [String: Any] = ["account": Self.accountObject(account), "authParameters": parameters]
        guard let reply = try await call("acquireTokenSilently", request, interactive: false, correlationId)
        else { return nil }
        return try await tokenResult(
            reply, scopes: scopes, resolved: resolved, account: account, grant: .refreshToken, correlationId)
    }

    /// `removeAccount`: the broker forgets the account for this app. Failures are logged only:
    /// the caller still removes the account from the cache.
    func removeAccount(_ account: MSALAccount, correlationId: UUID) async {
        let request: [String: Any] = ["account": Self.accountObject(account), "clientId": context.clientId]
        do {
            _ = try await call("removeAccount", request, interactive: false, correlationId)
        } catch {
            Log.warning("The broker could not remove the account", correlationId: correlationId)
        }
    }

    // MARK: Requests

    private func authParameters(
        scopes: OrderedScopes, resolved: ResolvedAuthority, account: MSALAccount?, claims: String?
    ) -> [String: Any] {
        var parameters: [String: Any] = [
            "authority": resolved.authority.urlString,
            // MSAL's "cached refresh token" authorization type, as the open-source clients send it.
            "authorizationType": 8,
            "clientId": context.clientId,
            "redirectUri": Self.redirectURI,
            "requestedScopes": scopes.values,
        ]
        if let account { parameters["account"] = Self.accountObject(account) }
        if let claims { parameters["decodedClaims"] = claims }
        return parameters
    }

    /// The broker's account object for `account`.
    static func accountObject(_ account: MSALAccount) -> [String: Any] {
        var object: [String: Any] = [
            "homeAccountId": account.identifier ?? "",
            "environment": account.environment ?? "login.microsoftonline.com",
            "username": account.username ?? "",
        ]
        if let id = account.homeAccountId, let uid = id.objectId, let utid = id.tenantId {
            object["localAccountId"] = uid
            object["realm"] = utid
            let info = #"{"uid":"\#(uid)","utid":"\#(utid)"}"#
            object["clientInfo"] = Base64URL.encode(Array(info.utf8))
        }
        return object
    }

    static func promptName(_ prompt: MSALPromptType) -> String {
        switch prompt {
        case .selectAccount: return "select_account"
        case .login: return "login"
        case .consent: return "consent"
        case .create: return "create"
        case .promptIfNecessary: return "none"
        }
    }

    /// Calls the broker; `nil` when none answers (logged once per application).
    private func call(_ method: String, _ request: [String: Any], interactive: Bool, _ correlationId: UUID)
        async throws -> [String: Any]?
    {
        let body = (try? JSONSerialization.data(withJSONObject: request, options: [.sortedKeys])) ?? Data()
        let text: String
        do {
            text = try await broker.call(
                method: method, correlationId: correlationId, request: String(decoding: body, as: UTF8.self),
                interactive: interactive)
        } catch let error as MSALBrokerConnectionError {
            switch error {
            case .unavailable(let why):
                let first = context.brokerAbsenceLogged.withLock { logged in
                    defer { logged = true }
                    return !logged
                }
                if first {
                    Log.warning(
                        "No broker answers (\(why)); using the library's own flows", correlationId: correlationId)
                }
                return nil
            case .cancelled:
                throw MSALErrors.make(
                    .userCanceled, "The broker's sign-in was cancelled.", ErrorDetails(correlationId: correlationId))
            case .timedOut, .failed:
                throw MSALErrors.make(
                    .internalErrorBrokerResponseNotReceived, "The broker did not answer \(method): \(error)",
                    ErrorDetails(correlationId: correlationId))
            }
        }
        guard let reply = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else {
            throw MSALErrors.make(
                .internalErrorBrokerCorruptedResponse, "The broker's answer to \(method) is not a JSON object.",
                ErrorDetails(correlationId: correlationId))
        }
        return reply
    }

    // MARK: Replies

    private func tokenResult(
        _ reply: [String: Any], scopes: OrderedScopes, resolved: ResolvedAuthority, account: MSALAccount?,
        grant: TokenResponseHandler.Request.Grant, _ correlationId: UUID
    ) async throws -> MSALResult {
        let response = reply["brokerTokenResponse"] as? [String: Any] ?? reply
        if let error = response["error"] as? [String: Any] ?? reply["error"] as? [String: Any] {
            throw Self.error(error, correlationId: correlationId)
        }
        guard let accessToken = response["accessToken"] as? String, !accessToken.isEmpty else {
            throw MSALErrors.make(
                .internalErrorBrokerCorruptedResponse, "The broker's token response has no access token.",
                ErrorDetails(correlationId: correlationId))
        }
        var body: [String: Any] = ["token_type": "Bearer", "access_token": accessToken]
        if let idToken = response["idToken"] as? String { body["id_token"] = idToken }
        let clientInfo =
            response["clientInfo"] as? String ?? (response["account"] as? [String: Any])?["clientInfo"] as? String
        if let clientInfo { body["client_info"] = clientInfo }
        if let expiresOn = Self.seconds(response["expiresOn"]) { body["expires_on"] = expiresOn }
        if let extended = Self.seconds(response["extendedExpiresOn"]) { body["ext_expires_on"] = extended }
        // Strings in some brokers, arrays in others.
        if let granted = response["grantedScopes"] as? String {
            body["scope"] = granted
        } else if let granted = response["grantedScopes"] as? [String] {
            body["scope"] = granted.joined(separator: " ")
        }
        let data = try JSONSerialization.data(withJSONObject: body)
        let tokenResponse = try TokenResponse(body: data, now: context.now(), correlationId: correlationId)
        return try await TokenResponseHandler(context: context).handle(
            tokenResponse,
            for: TokenResponseHandler.Request(
                resolved: resolved, scopes: scopes, correlationId: correlationId, nonce: nil, account: account,
                grant: grant))
    }

    /// Epoch milliseconds (a number or a string) as whole seconds.
    static func seconds(_ value: Any?) -> Int64? {
        if let number = value as? NSNumber { return number.int64Value / 1000 }
        if let text = value as? String, let number = Int64(text) { return number / 1000 }
        return nil
    }

    /// MSAL's error for the broker's `{context, status, subStatus}`.
    static func error(_ error: [String: Any], correlationId: UUID) -> NSError {
        let status = (error["status"]).map { "\($0)" } ?? "Unexpected"
        let subStatus = (error["subStatus"]).map { "\($0)" }
        let context = error["context"] as? String ?? ""
        var details = ErrorDetails(correlationId: correlationId)
        details.extra[MSALBrokerStatusKey] = subStatus.map { "\(status):\($0)" } ?? status
        switch status.lowercased() {
        case "interactionrequired", "accountunusable", "accountnotfound", "2":
            return MSALErrors.make(
                .interactionRequired, "The broker needs the user to sign in (\(status)): \(context)", details)
        case "usercanceled", "usercancelled", "applicationcanceled", "7", "8":
            return MSALErrors.make(.userCanceled, "The sign-in was cancelled (\(status)).", details)
        default:
            return MSALErrors.make(.internalErrorBrokerResponseNotReceived, "The broker failed (\(status)).", details)
        }
    }
}
