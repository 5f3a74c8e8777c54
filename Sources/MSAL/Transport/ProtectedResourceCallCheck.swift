import Foundation

/// What the library checks before it sends a request to a protected resource with a bearer
/// token (``MSALPublicClientApplication/callProtectedResource(_:authorizationHeader:)``): the
/// token goes to the URL's own origin only, over `https` (plain `http` only to a loopback host
/// the caller explicitly allowed), with a known method and headers that cannot be split into
/// others or redirect the request to another virtual host. A pure function of the request.
enum ProtectedResourceCallCheck {
    /// Why a request is not sent.
    enum Refusal: Error, Equatable, CustomStringConvertible {
        /// The URL has no host, or a scheme other than `http`/`https`.
        case notAWebURL
        /// The URL carries a user name or password (curl would send them as Basic credentials).
        case userInfo
        /// Plain `http` to a host that is not 127.0.0.1, ::1 or localhost.
        case plainHTTPNotLoopback
        /// Plain `http` to a loopback host without ``MSALProtectedResourceRequest/allowsPlainHTTPLoopback``.
        case plainHTTPNotAllowed
        /// A method the library does not send (`CONNECT`, `TRACE`, `OPTIONS`, ...).
        case method(String)
        /// A `HEAD` request with a body: a `HEAD` asks for the head of what a `GET` would answer.
        case bodyWithHead
        /// A header whose name is not an RFC 9110 token, or whose value holds a control character.
        case malformedHeader(String)
        /// A header the library sets itself or that could send the request elsewhere.
        case reservedHeader(String)

        var description: String {
            switch self {
            case .notAWebURL: "the URL is not an http or https URL with a host"
            case .userInfo: "the URL carries a user name or password"
            case .plainHTTPNotLoopback:
                "the URL is plain http: a bearer token is sent over https only (plain http only to a loopback host)"
            case .plainHTTPNotAllowed:
                "the URL is plain http: a bearer token goes to a loopback http URL only when allowsPlainHTTPLoopback is set"
            case .method(let method):
                "the method \(TerminalText.escaped(method)) is not one of \(ProtectedResourceCallCheck.methods.joined(separator: ", "))"
            case .bodyWithHead: "a HEAD request has no body"
            case .malformedHeader(let name):
                "the header \(TerminalText.escaped(name)) has a name that is not a token or a value with a control character"
            case .reservedHeader(let name):
                "the header \(TerminalText.escaped(name)) is set by the library or would send the request elsewhere"
            }
        }
    }

    /// How to send an accepted request.
    struct Plan: Equatable {
        var method: HTTPRequest.Method
        /// The loopback `http` origin the token may go to, when the URL is one.
        var plainHTTPOrigin: HTTPOrigin?
    }

    /// The methods sent, in the order error messages name them.
    static let methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]

    /// Headers the caller may not set (lowercased): the token's own, the message framing, and
    /// `Host`, which would name another virtual host than the URL's.
    static let reservedHeaders: Set<String> = [
        "authorization", "host", "content-length", "transfer-encoding", "connection", "expect", "te", "trailer",
        "upgrade", "keep-alive", "proxy-authorization", "proxy-connection",
    ]

    /// The plan for a request, or why it is refused.
    static func plan(
        url: URL, method: String, hasBody: Bool = false, headerNames: [String], headerValues: [String],
        allowsPlainHTTPLoopback: Bool
    ) -> Result<Plan, Refusal> {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let origin = HTTPOrigin(url), origin.scheme == "https" || origin.scheme == "http"
        else { return .failure(.notAWebURL) }
        guard components.user == nil, components.password == nil else { return .failure(.userInfo) }
        var plainHTTPOrigin: HTTPOrigin?
        if origin.scheme == "http" {
            guard ["127.0.0.1", "::1", "localhost"].contains(origin.host) else {
                return .failure(.plainHTTPNotLoopback)
            }
            guard allowsPlainHTTPLoopback else { return .failure(.plainHTTPNotAllowed) }
            plainHTTPOrigin = origin
        }
        guard let known = HTTPRequest.Method(rawValue: method), methods.contains(method) else {
            return .failure(.method(method))
        }
        guard known != .head || !hasBody else { return .failure(.bodyWithHead) }
        for (name, value) in zip(headerNames, headerValues) {
            guard !name.isEmpty, name.utf8.allSatisfy(isTokenCharacter),
                value.unicodeScalars.allSatisfy({ $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7F) })
            else { return .failure(.malformedHeader(name)) }
            guard !reservedHeaders.contains(name.lowercased()) else { return .failure(.reservedHeader(name)) }
        }
        return .success(Plan(method: known, plainHTTPOrigin: plainHTTPOrigin))
    }

    /// RFC 9110 `tchar`.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
