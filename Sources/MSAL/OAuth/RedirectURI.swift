import Foundation

/// A validated redirect URI, and how the redirect to it is received on Linux.
///
/// - `http` is allowed only on a loopback host (`localhost`, `127.0.0.1`, `[::1]`): the system
///   browser comes back to a loopback listener. Without a port the listener takes a free port when
///   the request starts (RFC 8252 §7.3; Microsoft Entra ID accepts any port for `http://localhost`);
///   with a port, that port. The default redirect URI is `http://localhost`.
/// - `https` is allowed on any host, and custom schemes (`myapp://auth`, `msauth.<bundle id>://auth`)
///   too, but only with a custom web view, which catches the navigation: a system browser would
///   leave the app and never come back.
/// - Never a fragment, user information, or the out-of-band `urn:ietf:wg:oauth:2.0:oob`.
struct RedirectURI: Sendable, Hashable, CustomStringConvertible {
    /// The redirect URI used when the app configures none.
    static let defaultLoopback = "http://localhost"

    /// How the redirect to this URI arrives.
    enum Kind: Sendable, Hashable {
        /// `http` on a loopback host; `port` is `nil` when chosen at run time.
        case loopback(port: Int?)
        /// `https` on any host.
        case https
        /// A private-use scheme such as `myapp` or `msauth.com.contoso.app`.
        case customScheme
    }

    /// The URI as configured (or the default), trimmed.
    let string: String
    let kind: Kind
    /// The lowercased scheme.
    let scheme: String
    /// The lowercased host, without brackets for IPv6 (`::1`); empty when the URI has none.
    let host: String
    /// The path, as written (`""` when none).
    let path: String

    var description: String { string }

    /// Whether the redirect is received by a loopback listener when the system browser is used.
    var isLoopback: Bool {
        if case .loopback = kind { return true }
        return false
    }

    /// The hosts accepted for `http` redirect URIs.
    static let loopbackHosts: Set<String> = ["localhost", "127.0.0.1", "::1"]

    /// Validates a configured redirect URI (`nil` or blank: ``defaultLoopback``).
    ///
    /// - Parameters:
    ///   - configured: the app's redirect URI.
    ///   - customWebview: whether a custom web view receives the redirect (required for `https` and
    ///     custom schemes).
    /// - Throws: -50000 + -42011 (invalid redirect URI), saying what to use instead.
    init(validating configured: String?, customWebview: Bool, correlationId: UUID? = nil) throws {
        let text = (configured ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let string = text.isEmpty ? Self.defaultLoopback : text
        let shown = Redaction.url(string)
        func fail(_ reason: String) -> NSError {
            MSALErrors.make(
                .internalErrorInvalidRedirectURI, reason, ErrorDetails(correlationId: correlationId))
        }
        if string.lowercased() == "urn:ietf:wg:oauth:2.0:oob" {
            throw fail(
                "The redirect URI urn:ietf:wg:oauth:2.0:oob (out of band) is not supported. Use http://localhost "
                    + "(the system browser returns to a loopback listener), or the device code flow on machines "
                    + "without a browser.")
        }
        guard string.rangeOfCharacter(from: .whitespacesAndNewlines) == nil,
            let components = URLComponents(string: string)
        else {
            throw fail(
                "The redirect URI '\(shown)' is not a valid URI. Use http://localhost, or "
                    + "myapp://auth with a custom web view.")
        }
        guard let rawScheme = components.scheme, !rawScheme.isEmpty else {
            throw fail(
                "The redirect URI '\(shown)' has no scheme. Use http://localhost, or myapp://auth "
                    + "with a custom web view.")
        }
        if components.fragment != nil {
            throw fail("RedirectUri MUST NOT include a fragment component.")
        }
        if components.user != nil || components.password != nil {
            throw fail(
                "The redirect URI must not contain user information (user@ or user:password@). Remove it.")
        }
        let scheme = rawScheme.lowercased()
        let host = Self.normalizedHost(components)
        let path = components.path
        let kind: Kind
        switch scheme {
        case "http":
            guard !host.isEmpty else {
                throw fail("The redirect URI '\(shown)' has no host. Use http://localhost.")
            }
            guard Self.loopbackHosts.contains(host) else {
                throw fail(
                    "The redirect URI '\(shown)' uses http on the host '\(host)'. http is allowed only on a "
                        + "loopback address (http://localhost, http://127.0.0.1 or http://[::1], with an optional "
                        + "port and path); use https for any other host.")
            }
            if let port = components.port, !(1...65535).contains(port) {
                throw fail(
                    "The redirect URI '\(shown)' has the port \(port). Use a port in 1...65535, or omit the port "
                        + "(http://localhost) so a free one is chosen when the sign-in starts.")
            }
            kind = .loopback(port: components.port)
        case "https":
            guard !host.isEmpty else {
                throw fail("The redirect URI '\(shown)' has no host. Add one, such as https://contoso.com/auth.")
            }
            guard customWebview else {
                throw fail(
                    "The redirect URI '\(shown)' is https, which the system browser cannot hand back to this app. "
                        + "Use http://localhost (register it for the app as a mobile and desktop platform redirect "
                        + "URI), or set MSALWebviewParameters.customWebview to a web view that catches the redirect.")
            }
            kind = .https
        default:
            if scheme.hasPrefix("msauth.") && host != "auth" {
                throw fail(
                    "The redirect URI '\(shown)' uses the msauth scheme without the host 'auth'. Use \(scheme)://auth."
                )
            }
            guard !host.isEmpty || !path.isEmpty else {
                throw fail("The redirect URI '\(shown)' has no host or path. Use the form myapp://auth.")
            }
            guard customWebview else {
                throw fail(
                    "The redirect URI '\(shown)' uses the custom scheme '\(scheme)', which only a custom web view "
                        + "can receive on Linux. Set MSALWebviewParameters.customWebview, or use http://localhost "
                        + "with the system browser.")
            }
            kind = .customScheme
        }
        self.string = string
        self.kind = kind
        self.scheme = scheme
        self.host = host
        self.path = path
    }

    /// The redirect URI for a loopback listener bound to `port`: the configured URI with that
    /// port (`http://localhost` → `http://localhost:53117`). Other URIs are returned unchanged.
    func with(port: Int) -> String {
        guard case .loopback(nil) = kind, var components = URLComponents(string: string) else { return string }
        components.port = port
        return components.string ?? string
    }

    /// Whether `url` is a redirect to this URI: same scheme and host (case-insensitive), same port
    /// (the default port of the scheme when absent), same path (`""` and `/` are equal). The query
    /// and fragment are not compared. For a loopback URI without a configured port, any port matches
    /// unless `port` is given.
    func matches(_ url: URL, port expectedPort: Int? = nil) -> Bool {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let urlScheme = components.scheme?.lowercased(), urlScheme == scheme,
            Self.normalizedHost(components) == host
        else { return false }
        if components.user != nil || components.password != nil { return false }
        let urlPath = components.path.isEmpty ? "/" : components.path
        let ownPath = path.isEmpty ? "/" : path
        guard urlPath == ownPath else { return false }
        let urlPort = components.port ?? Self.defaultPort(scheme)
        switch kind {
        case .loopback(let configuredPort):
            if let required = configuredPort ?? expectedPort {
                return urlPort == required
            }
            return true
        case .https, .customScheme:
            return urlPort == (URLComponents(string: string)?.port ?? Self.defaultPort(scheme))
        }
    }

    /// The lowercased host without the brackets of an IPv6 literal (Foundation keeps them).
    private static func normalizedHost(_ components: URLComponents) -> String {
        var host = (components.host ?? "").lowercased()
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        }
        return host
    }

    private static func defaultPort(_ scheme: String) -> Int? {
        switch scheme {
        case "http": 80
        case "https": 443
        default: nil
        }
    }
}
