import Foundation
import MSALNative

/// Sign-in, silent calls and sign-out through the Linux broker (``MSALBrokerConnection``), for
/// Microsoft Entra ID authorities only. The broker's tokens are checked and cached as the token
/// endpoint's are (``TokenResponseHandler``), without a refresh token: a silent call asks the
/// broker again once the access token expired. Each method returns `nil` when no broker answers,
/// and the caller then runs the library's own flow.
///
/// Replies are parsed into typed values (``BrokerReply``) before anything is decided; the
/// decisions (``silentGoesToBroker(accountSource:)``, ``error(_:correlationId:)``,
/// ``merged(cached:broker:)``) are pure functions of them. None of the broker's text reaches an
/// error or a log line: it may echo what was sent.
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
            "acquireTokenInteractively", reply, scopes: scopes, resolved: resolved, account: account, grant: .signIn,
            correlationId)
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
            "acquireTokenSilently", reply, scopes: scopes, resolved: resolved, account: account,
            grant: .refreshToken, correlationId)
    }

    /// `removeAccount`: the broker forgets the account for this app. Failures are logged only:
    /// the caller still removes the account from the cache.
    func removeAccount(_ account: MSALAccount, correlationId: UUID) async {
        let request: [String: Any] = ["account": Self.accountObject(account), "clientId": context.clientId]
        do {
            guard let reply = try await call("removeAccount", request, interactive: false, correlationId) else {
                return
            }
            if let failure = try Self.parse("removeAccount", reply, correlationId: correlationId, BrokerReply.failure) {
                throw Self.error(failure, correlationId: correlationId)
            }
        } catch {
            Log.warning("The broker could not remove the account", correlationId: correlationId)
        }
    }

    /// `getAccounts`: the accounts the broker knows for this app, or `nil` when no broker answers.
    ///
    /// - Throws: the broker's failure, a missed deadline or a malformed reply as MSAL's errors.
    func accounts(correlationId: UUID) async throws -> [BrokerAccount]? {
        let request: [String: Any] = ["clientId": context.clientId, "redirectUri": Self.redirectURI]
        guard let reply = try await call("getAccounts", request, interactive: false, correlationId) else { return nil }
        switch try Self.parse("getAccounts", reply, correlationId: correlationId, BrokerReply.accounts) {
        case .failure(let failure): throw Self.error(failure, correlationId: correlationId)
        case .accounts(let accounts): return accounts
        }
    }

    // MARK: Account sources

    /// The cache's `account_source` values: how an account was established, as MSAL for Python
    /// records them (the grant type), so either library tells accounts apart in a shared cache.
    enum AccountSource {
        /// Signed in through the broker (MSAL for Python's `_GRANT_TYPE_BROKER`).
        static let broker = "broker"
        /// Signed in with the library's own interactive flow.
        static let authorizationCode = "authorization_code"
        /// Signed in with the device code flow.
        static let deviceCode = "urn:ietf:params:oauth:grant-type:device_code"
    }

    /// The `account_source` of the broker's accounts.
    static let accountSource = AccountSource.broker

    /// Whether a silent call for an account whose cached `account_source` is `source` asks the
    /// broker (when it is on and serves the authority). MSAL for Python's rule: yes for accounts
    /// the broker signed in and for accounts of unknown source (cached by an older library, or
    /// listed by the broker only); no for accounts another grant established
    /// (``AccountSource/authorizationCode``, ``AccountSource/deviceCode``), whose own refresh
    /// token is used.
    static func silentGoesToBroker(accountSource source: String?) -> Bool {
        source == nil || source == accountSource
    }

    /// The public account for an account the broker listed: its home tenant profile only (the
    /// broker gives no id token), an SSO account as MSAL for iOS marks those of its SSO extension.
    static func account(_ account: BrokerAccount) -> MSALAccount {
        let homeTenant = MSALAccountId(homeAccountId: account.homeAccountId).tenantId
        let profile = MSALTenantProfile(
            identifier: account.localAccountId, environment: account.environment, tenantId: account.realm,
            isHomeTenantProfile: account.realm != nil && account.realm == homeTenant, idToken: nil)
        return MSALAccount(
            username: account.username, homeAccountId: account.homeAccountId, environment: account.environment,
            tenantProfiles: [profile], homeIdToken: nil, isSSOAccount: true)
    }

    /// The cached accounts, then those only the broker knows: one account per home account id
    /// (compared case-insensitively), the cached one winning; broker accounts without an id are
    /// dropped.
    static func merged(cached: [MSALAccount], broker: [BrokerAccount]) -> [MSALAccount] {
        var seen = Set(cached.compactMap { $0.identifier?.lowercased() })
        var merged = cached
        for account in broker where !account.homeAccountId.isEmpty {
            guard seen.insert(account.homeAccountId.lowercased()).inserted else { continue }
            merged.append(Self.account(account))
        }
        return merged
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

    /// Calls the broker; `nil` when none answers (logged once per application). The reply is
    /// returned as it came: ``BrokerReply`` parses it.
    private func call(_ method: String, _ request: [String: Any], interactive: Bool, _ correlationId: UUID)
        async throws -> String?
    {
        let body = (try? JSONSerialization.data(withJSONObject: request, options: [.sortedKeys])) ?? Data()
        do {
            return try await broker.call(
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
                        "No broker answers (\(redacting: why)); using the library's own flows",
                        correlationId: correlationId)
                }
                return nil
            case .cancelled:
                throw MSALErrors.make(
                    .userCanceled, "The broker's sign-in was cancelled.", ErrorDetails(correlationId: correlationId))
            case .timedOut, .failed:
                throw MSALErrors.make(
                    .internalErrorBrokerResponseNotReceived,
                    "The broker did not answer \(method): \(Self.describe(error))",
                    ErrorDetails(correlationId: correlationId))
            }
        }
    }

    /// A connection failure in words that cannot carry what was sent: a D-Bus error's message is
    /// the broker's text, so only its name is shown.
    static func describe(_ error: MSALBrokerConnectionError) -> String {
        switch error {
        case .failed(let name, _):
            return "the broker failed: \(BrokerFailure.identifier(name) ?? "a D-Bus error")"
        case .unavailable: return "no broker"
        case .timedOut, .cancelled: return error.description
        }
    }

    // MARK: Replies

    /// The broker's reply to `method` parsed, or -50000 with internal -42705 when it is malformed.
    static func parse<T>(
        _ method: String, _ text: String, correlationId: UUID, _ parse: (String) throws(BrokerReply.Malformed) -> T
    ) throws -> T {
        do {
            return try parse(text)
        } catch {
            throw MSALErrors.make(
                .internalErrorBrokerCorruptedResponse, "The broker's answer to \(method) was refused: \(error).",
                ErrorDetails(correlationId: correlationId))
        }
    }

    private func tokenResult(
        _ method: String, _ reply: String, scopes: OrderedScopes, resolved: ResolvedAuthority, account: MSALAccount?,
        grant: TokenResponseHandler.Request.Grant, _ correlationId: UUID
    ) async throws -> MSALResult {
        let token: BrokerToken
        switch try Self.parse(method, reply, correlationId: correlationId, BrokerReply.token) {
        case .failure(let failure): throw Self.error(failure, correlationId: correlationId)
        case .token(let value): token = value
        }
        let tokenResponse = try TokenResponse(
            body: token.tokenResponseBody(), now: context.now(), correlationId: correlationId)
        return try await TokenResponseHandler(context: context).handle(
            tokenResponse,
            for: TokenResponseHandler.Request(
                resolved: resolved, scopes: scopes, correlationId: correlationId, nonce: nil, account: account,
                grant: grant, accountSource: Self.accountSource))
    }

    /// MSAL's error for a broker failure. Its status goes under ``MSALBrokerStatusKey``; of its
    /// context, only the Entra error codes it names are shown.
    static func error(_ failure: BrokerFailure, correlationId: UUID) -> NSError {
        var details = ErrorDetails(correlationId: correlationId)
        details.extra[MSALBrokerStatusKey] = failure.statusText
        let codes = failure.errorCodes.isEmpty ? "" : " (\(failure.errorCodes.joined(separator: ", ")))"
        switch failure.kind {
        case .interactionRequired:
            return MSALErrors.make(
                .interactionRequired, "The broker needs the user to sign in (\(failure.statusText))\(codes).", details)
        case .userCanceled:
            return MSALErrors.make(.userCanceled, "The sign-in was cancelled (\(failure.statusText)).", details)
        case .other:
            return MSALErrors.make(
                .internalErrorBrokerResponseNotReceived, "The broker failed (\(failure.statusText))\(codes).", details)
        }
    }
}
