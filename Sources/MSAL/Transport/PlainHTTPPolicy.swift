import Foundation

/// The scheme, host and port of a URL, as the plain-HTTP rule compares them: lowercased, IPv6
/// hosts without brackets, the port explicit (80 for `http`, 443 for `https` when absent).
struct HTTPOrigin: Hashable, Sendable, CustomStringConvertible {
    let scheme: String
    let host: String
    let port: Int

    init(scheme: String, host: String, port: Int?) {
        let scheme = scheme.lowercased()
        self.scheme = scheme
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.host = host
        self.port = port ?? (scheme == "https" ? 443 : 80)
    }

    /// The origin of `url`, or `nil` when it has no scheme or host.
    init?(_ url: URL) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme, let host = components.host, !host.isEmpty
        else { return nil }
        self.init(scheme: scheme, host: host, port: components.port)
    }

    var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(shownHost):\(port)"
    }
}

/// The transport's rule for plain HTTP: a request that carries a credential (any body, such as a
/// token request's form, or an `Authorization` header) goes only to an `https` URL, or to a
/// plain-HTTP origin the application itself configured (a loopback authority listed in
/// `knownAuthorities`, for tests and emulators). Being on loopback is not enough: a discovery
/// document can name any loopback port, and whatever listens there is not the authority.
///
/// The second of two walls: discovery refuses such endpoints first; this one holds whatever
/// the URL's source.
struct PlainHTTPPolicy: Sendable {
    /// The plain-HTTP origins credentials may be sent to.
    var allowedOrigins: Set<HTTPOrigin>

    init(allowedOrigins: Set<HTTPOrigin> = []) {
        self.allowedOrigins = allowedOrigins
    }

    /// What the transport does with a request.
    enum Decision: Equatable {
        /// Send it.
        case send
        /// Refuse it before connecting: it carries a credential and the URL is not https.
        case refuse
    }

    /// The decision for `request`.
    func decision(for request: HTTPRequest) -> Decision {
        guard Self.carriesCredential(request) else { return .send }
        guard let origin = HTTPOrigin(request.url) else { return .refuse }
        if origin.scheme == "https" { return .send }
        guard origin.scheme == "http" else { return .refuse }
        return allowedOrigins.contains(origin) || origin == request.plainHTTPOrigin ? .send : .refuse
    }

    /// Whether `request` carries something a listener must not read: a body (every token,
    /// device code and form request has one) or an `Authorization` header.
    static func carriesCredential(_ request: HTTPRequest) -> Bool {
        request.body != nil || request.method == .post
            || request.headers.contains { ASCII.equalsIgnoringCase($0.name, "Authorization") }
    }

    /// The plain-HTTP origins of `authorities` (those the app listed in `knownAuthorities` with
    /// `http` on a loopback host; any other authority is https or refused earlier).
    static func allowedOrigins(knownAuthorities: [Authority]) -> Set<HTTPOrigin> {
        var origins = Set<HTTPOrigin>()
        for authority in knownAuthorities where authority.isLoopbackHTTP && authority.parts.isLoopbackHost {
            origins.insert(HTTPOrigin(scheme: "http", host: authority.parts.host, port: authority.parts.port))
        }
        return origins
    }

    /// The error for a refused request: `NSURLErrorDomain` -1022, Apple's App Transport Security
    /// refusal, naming the URL without its query.
    static func refusal(for request: HTTPRequest) -> NSError {
        let failingURL = request.url.withoutQuery
        let description =
            "The request to \(failingURL) was not sent: it carries a credential (a body or an Authorization "
            + "header) and the URL is not https. Plain http is allowed only to a loopback authority the "
            + "application lists in MSALPublicClientApplicationConfig.knownAuthorities."
        return NSError(
            domain: NSURLErrorDomain,
            code: URLErrorCode.appTransportSecurityRequiresSecureConnection.rawValue,
            userInfo: [
                NSLocalizedDescriptionKey: description,
                NSURLErrorFailingURLErrorKey: URL(string: failingURL) ?? request.url,
                MSALCorrelationIDKey: request.correlationId.uuidString,
            ]
        )
    }
}
