import Foundation
import MSALNative

/// What the loopback redirect listener does with one request it has read: a pure decision, so
/// every rule (the `Host`, the path, the response mode, the `state`) is tested without sockets.
enum LoopbackRequestDecision: Equatable {
    /// Answer `status` with this page (or a bare status line), log `warning` when there is one,
    /// and keep waiting for the real redirect.
    case refuse(status: Int, reason: String, page: RefusalPage?, warning: String?)
    /// The redirect of the sign-in: hand `url` on and show the success page, or the error page
    /// when the server sent an `error`.
    case deliver(url: URL, failed: Bool)

    /// The pages a refused browser request is shown (none holds a code or a server's text).
    enum RefusalPage: Equatable {
        /// Not addressed to this listener (a rebound DNS name).
        case misdirected
        /// A code in the address while the sign-in expects a form submission.
        case expectsFormPost
        /// Not the sign-in in progress (another `state`).
        case unrecognised

        var title: String {
            switch self {
            case .misdirected, .expectsFormPost: "Sign-in response not accepted"
            case .unrecognised: "Sign-in response not recognised"
            }
        }

        var message: String {
            switch self {
            case .misdirected:
                "This request was not addressed to the application's sign-in listener on this computer. "
                    + "Return to the application and try again if needed."
            case .expectsFormPost:
                "This sign-in expects its response as a form submission, not in the address. Return to the "
                    + "application and try again if needed."
            case .unrecognised:
                "This response does not belong to the sign-in in progress. Return to the application and try "
                    + "again if needed."
            }
        }
    }

    /// What the listener waits for.
    struct Expectation: Sendable {
        /// The redirect URI's path.
        var path: String
        /// The listener's port, which the `Host` header must name.
        var port: Int
        /// `http://<host>:<port>`, the start of the URL handed on.
        var origin: String
        /// The sign-in's `state`, or `nil` to take any.
        var state: String?
        var mode: RedirectResponseMode
    }

    /// The decision for a request: `method`, `target` (path and query), `headers` (names
    /// lower-cased) and, for a `POST`, its body.
    static func decide(
        method: String, target: String, headers: [(name: String, value: String)], body: [UInt8]?,
        expecting expectation: Expectation
    ) -> LoopbackRequestDecision {
        let hosts = headers.filter { $0.name == "host" }
        guard hosts.count == 1 else { return .badRequest }
        guard isLoopbackHost(hosts[0].value, port: expectation.port) else {
            return .refuse(
                status: 421, reason: "Misdirected Request", page: .misdirected,
                warning:
                    "The loopback listener refused a request whose Host is not a loopback name (a rebound DNS name?).")
        }
        guard target.prefix(while: { $0 != "?" && $0 != "#" }) == expectation.path else { return .notFound }
        let query = target.firstIndex(of: "?").map { String(target[target.index(after: $0)...]) } ?? ""
        let parameters: [(name: String, value: String)]
        switch (method, expectation.mode) {
        case ("GET", .query):
            parameters = FormURLEncoding.decode(query) ?? []
        case ("GET", .formPost):
            // An error carries no secret and still needs the state: a provider's error redirect in
            // the address must not leave the sign-in waiting until its timeout.
            let inURL = FormURLEncoding.decode(query) ?? []
            let carriesCode = inURL.contains { $0.name == "code" }
            guard !carriesCode, inURL.contains(where: { $0.name == "error" }) else {
                return .refuse(
                    status: 400, reason: "Bad Request", page: .expectsFormPost,
                    warning: carriesCode
                        ? "The loopback listener refused a GET carrying a code: this sign-in expects form_post." : nil)
            }
            parameters = inURL
        case ("POST", .formPost):
            guard let body, let decoded = FormURLEncoding.decode(String(decoding: body, as: UTF8.self)) else {
                return .badRequest
            }
            parameters = decoded
        default:
            return .notFound
        }
        if let expected = expectation.state {
            let received = parameters.first { $0.name == "state" }?.value
            guard let received, ConstantTime.equals(received, expected) else {
                return .refuse(
                    status: 400, reason: "Bad Request", page: .unrecognised,
                    warning: "The loopback listener ignored a request without the expected state (a stale tab or "
                        + "another program).")
            }
        }
        // A POST's parameters become the query of the URL handed on: assembled here, never sent.
        let address = method == "POST" ? expectation.path + "?" + FormURLEncoding.encode(parameters) : target
        guard let url = URL(string: expectation.origin + address) else { return .badRequest }
        return .deliver(url: url, failed: parameters.contains { $0.name == "error" })
    }

    /// Whether `value` (a `Host` header) names the listener: `127.0.0.1`, `localhost` or `[::1]`
    /// with `port` (case-insensitive; without a port only when `port` is 80).
    static func isLoopbackHost(_ value: String, port: Int) -> Bool {
        let host = value.trimmingCharacters(in: CharacterSet(charactersIn: " \t")).lowercased()
        let names = ["127.0.0.1", "localhost", "[::1]"]
        return names.contains { host == "\($0):\(port)" || (port == 80 && host == $0) }
    }

    private static let badRequest = LoopbackRequestDecision.refuse(
        status: 400, reason: "Bad Request", page: nil, warning: nil)
    private static let notFound = LoopbackRequestDecision.refuse(
        status: 404, reason: "Not Found", page: nil, warning: nil)
}
