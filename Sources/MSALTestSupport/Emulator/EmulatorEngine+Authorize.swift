import Foundation
import MSALNative

extension EmulatorEngine {
    /// `GET /{tenant}/oauth2/v2.0/authorize`: a scripted sign-in that redirects with a code, or
    /// with an error, to the app's redirect URI.
    func authorize(_ context: EmulatorRequestContext, directive: FaultDirective) -> HTTPServerResponse {
        let parameters = context.parameters
        let route = context.route
        let checked = state.withLock { state -> Result<(EmulatorAudience, EmulatorClient), EntraErrorResponse> in
            EmulatorAudience.resolve(route, in: state).flatMap { audience in
                guard let clientId = parameters["client_id"], let client = state.client(clientId) else {
                    return .failure(Self.unknownClient(parameters["client_id"] ?? "", route: route))
                }
                return .success((audience, client))
            }
        }
        let audience: EmulatorAudience
        let client: EmulatorClient
        switch checked {
        case .failure(let error): return context.errorPage(error)
        case .success(let value): (audience, client) = value
        }
        guard let redirectURI = parameters["redirect_uri"], Self.isRegistered(redirectURI, for: client) else {
            return context.errorPage(
                EntraErrorResponse(
                    error: "invalid_request", code: 50011,
                    message: "The redirect URI '\(parameters["redirect_uri"] ?? "")' specified in the request does "
                        + "not match the redirect URIs configured for the application '\(client.clientId)'."))
        }
        let requestedMode = parameters["response_mode"] ?? "query"
        let redirect = AuthorizeRedirect(
            context: context, redirectURI: redirectURI,
            responseMode: requestedMode == "form_post" && !offersFormPost ? "query" : requestedMode,
            state: parameters["state"])
        if let error = directive.error { return redirect.error(error) }
        if let problem = Self.validate(parameters, responseModes: responseModes) { return redirect.error(problem) }

        let scopes = (parameters["scope"] ?? "").split(separator: " ").map(String.init)
        if let problem = state.withLock({ $0.registrationProblem(scopes, client: client) }) {
            return redirect.error(problem)
        }
        let prompt = parameters["prompt"]
        let session = state.withLock { $0.sessionUsername }
        let script = state.withLock { $0.signInDecision }
        let request = EmulatorSignInRequest(
            clientId: client.clientId, tenant: route.tenant, policy: route.policy, scopes: scopes,
            loginHint: parameters["login_hint"], domainHint: parameters["domain_hint"], prompt: prompt,
            claims: parameters["claims"], sessionUsername: session, parameters: parameters)
        var decision = script?(request) ?? .useDefaultRules
        if decision == .useDefaultRules {
            decision = defaultDecision(request)
        }
        let username: String
        var declined = directive.declinedScopes
        switch decision {
        case .useDefaultRules, .declineConsent:
            return redirect.error(
                EntraErrorResponse(
                    error: "access_denied", code: 65004,
                    message: "User declined to consent to access the app."))
        case .fail(let error):
            return redirect.error(error)
        case .signIn(let name, let declinedScopes):
            username = name
            declined += declinedScopes
        }

        let outcome = state.withLock { state -> Result<(EmulatorUser, String), EntraErrorResponse> in
            guard let user = state.user(named: username) else {
                return .failure(
                    EntraErrorResponse(
                        error: "invalid_request", code: 50034,
                        message: "The user account \(username) does not exist in the directory."))
            }
            guard let tenantId = audience.tenantId(for: user, in: state) else {
                return .failure(audience.userNotInTenant(user, route: route))
            }
            return .success((user, tenantId))
        }
        let user: EmulatorUser
        let tenantId: String
        switch outcome {
        case .failure(let error): return redirect.error(error)
        case .success(let value): (user, tenantId) = value
        }
        if prompt == "none", state.withLock({ $0.needsConsent(scopes, username: user.username, client: client) }) {
            return redirect.error(EmulatorScopes.consentRequired(client: client, error: "consent_required"))
        }

        let code = randomToken(bytes: 48, prefix: "1.A")
        let fresh = session?.lowercased() != user.username.lowercased() || prompt == "login"
        let homeCloud = state.withLock { state in
            state.tenant(id: user.homeTenantId)?.cloudHost ?? EmulatorCloud.worldwide.preferredNetwork
        }
        state.withLock { state in
            let key = EmulatorState.consentKey(user.username, client.clientId)
            var remembered = state.declinedConsents[key] ?? []
            remembered.subtract(scopes.map(EmulatorScopes.key))
            remembered.formUnion(declined.map(EmulatorScopes.key))
            state.declinedConsents[key] = remembered
            state.recordConsent(scopes, declined: declined, username: user.username, client: client)
            state.sessionUsername = user.username
            state.signIns.append(
                EmulatorSignInRecord(
                    username: user.username, clientId: client.clientId, prompt: prompt, isFreshSignIn: fresh,
                    declinedScopes: declined))
            state.codes[code] = AuthorizationCodeGrant(
                subject: GrantSubject(
                    username: user.username, clientId: client.clientId, tenantId: tenantId, policy: route.policy),
                redirectURI: redirectURI, codeChallenge: parameters["code_challenge"],
                codeChallengeMethod: parameters["code_challenge_method"], nonce: parameters["nonce"],
                scopes: scopes, declinedScopes: declined,
                expiresAt: context.now.addingTimeInterval(TimeInterval(state.lifetimes.authorizationCode)))
        }
        var items: [(String, String)] = [("code", code)]
        if parameters["client_info"] == "1", route.style != .adfs {
            let uid = route.policy.map { "\(user.objectId)-\($0.lowercased())" } ?? user.objectId
            let json = "{\"uid\":\"\(uid)\",\"utid\":\"\(user.homeTenantId)\"}"
            items.append(("client_info", Base64URL.encode(Array(json.utf8))))
        }
        if let state = parameters["state"] { items.append(("state", state)) }
        if parameters["instance_aware"]?.lowercased() == "true" {
            let cloud = clouds.first { $0.contains(host: homeCloud) }
            items.append(("cloud_instance_name", cloud?.instanceName ?? "microsoftonline.com"))
            items.append(("cloud_instance_host_name", homeCloud))
            items.append(("cloud_graph_host_name", "graph.windows.net"))
            items.append(("msgraph_host", "graph.microsoft.com"))
        }
        if route.style == .tenant, route.policy == nil {
            items.append(("session_state", UUID().uuidString.lowercased()))
        }
        return redirect.respond(items)
    }

    /// The emulator's own sign-in rules (see ``EmulatorSignInDecision/useDefaultRules``).
    private func defaultDecision(_ request: EmulatorSignInRequest) -> EmulatorSignInDecision {
        let hint = request.loginHint.flatMap { $0.isEmpty ? nil : $0 }
        if request.prompt == "none" {
            guard let session = request.sessionUsername, hint == nil || hint?.lowercased() == session.lowercased()
            else {
                return .fail(
                    EntraErrorResponse(
                        error: "interaction_required", code: 50058,
                        message: "A silent sign-in request was sent but no user is signed in."))
            }
            return .signIn(username: session)
        }
        if let hint { return .signIn(username: hint) }
        if let session = request.sessionUsername, request.prompt != "login" { return .signIn(username: session) }
        if let user = state.withLock({ $0.defaultUsername }) { return .signIn(username: user) }
        return .fail(
            EntraErrorResponse(
                error: "interaction_required", code: 50058,
                message: "No user is signed in and the emulator has no default user."))
    }

    /// Checks the protocol parameters Entra insists on.
    private static func validate(_ parameters: [String: String], responseModes: [String]) -> EntraErrorResponse? {
        guard parameters["response_type"] == "code" else {
            return EntraErrorResponse(
                error: "unsupported_response_type", code: 70005,
                message: "The provided value for the input parameter 'response_type' is not allowed for this "
                    + "request. Expected value: 'code'.")
        }
        guard let scope = parameters["scope"], !scope.trimmingCharacters(in: .whitespaces).isEmpty else {
            return EntraErrorResponse(
                error: "invalid_request", code: 900144,
                message: "The request body must contain the following parameter: 'scope'.")
        }
        if let method = parameters["code_challenge_method"], !["S256", "plain"].contains(method) {
            return EntraErrorResponse(
                error: "invalid_request", code: 50147,
                message: "The code_challenge_method '\(method)' is not supported; use S256.")
        }
        if let mode = parameters["response_mode"], !responseModes.contains(mode) {
            return EntraErrorResponse(
                error: "invalid_request", code: 70007,
                message: "The response_mode '\(mode)' is not supported.")
        }
        return nil
    }

    static func unknownClient(_ clientId: String, route: EmulatorRoute) -> EntraErrorResponse {
        EntraErrorResponse(
            error: "unauthorized_client", code: 700016,
            message: "Application with identifier '\(clientId)' was not found in the directory '\(route.tenant)'. "
                + "This can happen if the application has not been installed by the administrator of the tenant.")
    }

    /// Whether `uri` is registered: exactly, or as a loopback URI whose registration has no port.
    static func isRegistered(_ uri: String, for client: EmulatorClient) -> Bool {
        if client.redirectURIs.contains(uri) { return true }
        guard let candidate = URLComponents(string: uri), let host = candidate.host,
            ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host.lowercased())
        else { return false }
        return client.redirectURIs.contains { registered in
            guard let allowed = URLComponents(string: registered), allowed.port == nil else { return false }
            let paths = [allowed.path, candidate.path].map { $0 == "/" ? "" : $0 }
            return allowed.scheme == candidate.scheme && allowed.host?.lowercased() == host.lowercased()
                && paths[0] == paths[1]
        }
    }

    /// `GET /{tenant}/oauth2/v2.0/logout`: ends the browser session, then returns to
    /// `post_logout_redirect_uri` (with `state`) or shows a signed-out page.
    func logout(_ context: EmulatorRequestContext) -> HTTPServerResponse {
        state.withLock { $0.sessionUsername = nil }
        let parameters = context.parameters
        guard let target = parameters["post_logout_redirect_uri"], var components = URLComponents(string: target)
        else {
            return .html("<!DOCTYPE html><html><body><h1>You signed out of your account</h1></body></html>")
        }
        if let state = parameters["state"] {
            components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "state", value: state)]
        }
        return .redirect(to: components.string ?? target)
    }
}

/// Answers an authorize request at its redirect URI, in its response mode.
struct AuthorizeRedirect {
    let context: EmulatorRequestContext
    let redirectURI: String
    let responseMode: String
    let state: String?

    func error(_ error: EntraErrorResponse) -> HTTPServerResponse {
        respond(
            error.redirectItems(
                traceId: context.traceId, correlationId: context.correlationId, timestamp: context.now,
                host: context.issuerHost, state: state))
    }

    /// Redirects with `items` in the query or fragment, or (form_post) answers with the page
    /// Entra sends: a form of hidden inputs POSTed to the redirect URI by a script when the page
    /// loads, with a submit button for a browser without scripts.
    func respond(_ items: [(String, String)]) -> HTTPServerResponse {
        if responseMode == "form_post" {
            let fields = items.map {
                "<input type=\"hidden\" name=\"\(escape($0.0))\" value=\"\(escape($0.1))\" />"
            }
            return .html(
                "<html><head><title>Working...</title></head><body>"
                    + "<form method=\"POST\" name=\"hiddenform\" action=\"\(escape(redirectURI))\">"
                    + fields.joined()
                    + "<noscript><p>Script is disabled. Click Submit to continue.</p>"
                    + "<input type=\"submit\" value=\"Submit\" /></noscript></form>"
                    + "<script language=\"javascript\">document.forms[0].submit();</script></body></html>")
        }
        let encoded = items.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        if responseMode == "fragment" { return .redirect(to: "\(redirectURI)#\(encoded)") }
        return .redirect(to: redirectURI + (redirectURI.contains("?") ? "&" : "?") + encoded)
    }

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "'", with: "&#39;")
    }

    /// Percent-encodes everything but unreserved characters (RFC 3986).
    static func encode(_ text: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
