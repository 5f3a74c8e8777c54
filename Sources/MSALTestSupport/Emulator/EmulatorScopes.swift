import Foundation

/// The scope rules of the v2.0 endpoint: one resource per token, short names are Microsoft Graph's,
/// `/.default` means the app's registered permissions, OIDC scopes are not resource scopes.
struct EmulatorScopes {
    /// `openid`, `profile`, `email`, `offline_access`.
    static let oidc: Set<String> = ["openid", "profile", "email", "offline_access"]

    /// The resource of the token.
    var resource: String
    /// The granted resource scopes as the `scope` field returns them.
    var granted: [String]
    /// The granted scope names without the resource (`scp`).
    var names: [String]
    /// The requested OIDC scopes, in request order.
    var oidcScopes: [String]

    /// The `scope` field: granted resource scopes, then the OIDC scopes asked for, in request
    /// order (B2C and AD FS).
    var scopeField: String {
        (granted + oidcScopes.filter { $0.lowercased() != "offline_access" }).joined(separator: " ")
    }

    /// The `scope` field as Entra ID reports it: granted resource scopes, then the identity
    /// scopes as `profile openid email` (`email` comes with `openid`, asked for or not;
    /// `offline_access` is never listed).
    var entraScopeField: String {
        let asked = Set(oidcScopes.map { $0.lowercased() })
        let identity = ["profile", "openid", "email"].filter { name in
            asked.contains(name) || (name == "email" && asked.contains("openid"))
        }
        return (granted + identity).joined(separator: " ")
    }

    /// Splits a resource scope into resource and name (`User.Read` is Graph's).
    static func split(_ scope: String) -> (resource: String, name: String) {
        guard let scheme = scope.range(of: "://") else { return (EmulatorClient.graph, scope) }
        guard let slash = scope[scheme.upperBound...].lastIndex(of: "/") else { return (scope, "") }
        return (String(scope[..<slash]), String(scope[scope.index(after: slash)...]))
    }

    /// A comparable form: lowercased `resource/name`, trailing slashes of the resource dropped.
    static func key(_ scope: String) -> String {
        let (resource, name) = split(scope)
        return "\(trimmed(resource).lowercased())/\(name.lowercased())"
    }

    static func trimmed(_ resource: String) -> String {
        var value = Substring(resource)
        while value.hasSuffix("/") { value = value.dropLast() }
        return String(value)
    }

    /// Grants `requested` to `client` except the `declined` keys (see ``key(_:)``).
    static func grant(_ requested: [String], client: EmulatorClient, declined: Set<String>)
        -> Result<EmulatorScopes, EntraErrorResponse>
    {
        let oidcScopes = requested.filter { oidc.contains($0.lowercased()) }
        let resourceScopes = requested.filter { !oidc.contains($0.lowercased()) }
        var resources: [String] = []
        var granted: [String] = []
        var names: [String] = []
        for scope in resourceScopes {
            if scope.lowercased() == client.clientId.lowercased() {
                // B2C: the client id as scope asks for an access token for the app itself.
                if !resources.contains(scope) { resources.append(scope) }
                continue
            }
            let (resource, name) = split(scope)
            let base = trimmed(resource)
            if !resources.contains(where: { $0.lowercased() == base.lowercased() }) { resources.append(base) }
            if name == ".default" {
                let registered = client.permissions.first { trimmed($0.key).lowercased() == base.lowercased() }
                guard let registered, !registered.value.isEmpty else {
                    return .failure(
                        EntraErrorResponse(
                            error: "invalid_scope", code: 70011,
                            message: "The provided value for the input parameter 'scope' is not valid. The "
                                + "application '\(client.clientId)' has no permissions registered for '\(base)'."))
                }
                for permission in registered.value where !declined.contains(key("\(base)/\(permission)")) {
                    granted.append("\(trimmed(registered.key))/\(permission)")
                    names.append(permission)
                }
            } else if !declined.contains(key(scope)) {
                granted.append(scope)
                names.append(name)
            }
        }
        if resources.count > 1 {
            return .failure(
                EntraErrorResponse(
                    error: "invalid_scope", code: 28000,
                    message: "Provided value for the input parameter scope is not valid because it contains more "
                        + "than one resource. Scope \(requested.joined(separator: " ")) is not valid."))
        }
        return .success(
            EmulatorScopes(
                resource: resources.first ?? EmulatorClient.graph, granted: granted, names: names,
                oidcScopes: oidcScopes))
    }
}

// MARK: The directory's rules: registered permissions and consent

extension EmulatorScopes {
    /// Whether `scope` is a resource scope that `client` may not ask for: neither an OIDC scope,
    /// nor the client id (B2C), nor `/.default`, nor one of the permissions registered for its
    /// resource (names compared case-insensitively, as Entra does).
    static func isUnregistered(_ scope: String, client: EmulatorClient) -> Bool {
        if oidc.contains(scope.lowercased()) || scope.lowercased() == client.clientId.lowercased() { return false }
        let (resource, name) = split(scope)
        if name == ".default" { return false }
        let base = trimmed(resource).lowercased()
        return !client.permissions.contains { registered in
            trimmed(registered.key).lowercased() == base
                && registered.value.contains { $0.lowercased() == name.lowercased() }
        }
    }

    /// Entra's answer to a scope the resource does not expose to the app: `invalid_scope`
    /// (AADSTS70011).
    static func invalidScope(_ scope: String) -> EntraErrorResponse {
        EntraErrorResponse(
            error: "invalid_scope", code: 70011,
            message: "The provided value for the input parameter 'scope' is not valid. The scope '\(scope)' does "
                + "not exist.")
    }

    /// The first of `requested` that `client` did not register, as Entra's error.
    static func registrationProblem(_ requested: [String], client: EmulatorClient) -> EntraErrorResponse? {
        requested.first { isUnregistered($0, client: client) }.map(invalidScope)
    }

    /// What a user consents to when granting `requested` to `client`: the keys (``key(_:)``) of
    /// its resource scopes, `/.default` standing for the registered permissions of its resource.
    static func consentKeys(_ requested: [String], client: EmulatorClient) -> Set<String> {
        var keys = Set<String>()
        for scope in requested where !oidc.contains(scope.lowercased()) {
            if scope.lowercased() == client.clientId.lowercased() { continue }
            let (resource, name) = split(scope)
            let base = trimmed(resource)
            if name == ".default" {
                let registered = client.permissions.first { trimmed($0.key).lowercased() == base.lowercased() }
                for permission in registered?.value ?? [] { keys.insert(key("\(base)/\(permission)")) }
            } else {
                keys.insert(key(scope))
            }
        }
        return keys
    }

    /// Entra's answer when the user has not consented to every scope asked for: `invalid_grant`
    /// with suberror `consent_required` (AADSTS65001).
    static func consentRequired(client: EmulatorClient, error: String = "invalid_grant") -> EntraErrorResponse {
        EntraErrorResponse(
            error: error, code: 65001,
            message: "The user or administrator has not consented to use the application with ID "
                + "'\(client.clientId)'. Send an interactive authorization request for this user and resource.",
            suberror: error == "invalid_grant" ? "consent_required" : nil)
    }
}
