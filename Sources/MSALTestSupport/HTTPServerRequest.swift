public import Foundation

/// An HTTP request received by a ``LoopbackHTTPSServer``, handed to its handler.
public struct HTTPServerRequest: Sendable {
    /// The method as sent (`GET`, `POST`).
    public let method: String
    /// The request target as sent: path and query, percent-encoded (`/common/oauth2/v2.0/token?x=1`).
    public let target: String
    /// The protocol version as sent (`HTTP/1.1` or `HTTP/1.0`).
    public let version: String
    /// The header fields in the order sent.
    public let headers: HTTPServerHeaders
    /// The body (after removing chunked transfer coding); empty when there is none.
    public let body: Data
    /// Which TCP connection of the server carried the request (1 for the first accepted).
    public let connectionNumber: Int
    /// Which request on that connection this is (1 for the first): above 1 means keep-alive reuse.
    public let requestNumberOnConnection: Int

    /// Creates a request, for example to unit-test a handler without a server.
    public init(
        method: String,
        target: String,
        version: String = "HTTP/1.1",
        headers: HTTPServerHeaders = [:],
        body: Data = Data(),
        connectionNumber: Int = 1,
        requestNumberOnConnection: Int = 1
    ) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
        self.connectionNumber = connectionNumber
        self.requestNumberOnConnection = requestNumberOnConnection
    }

    /// The path part of the target, percent-encoded as sent (`/common/oauth2/v2.0/token`). For an
    /// absolute target (`https://host/path?q`) the path after the authority.
    public var path: String {
        var rest = Substring(target)
        // Only a target that does not start with "/" is absolute (origin-form always does), so a
        // raw "://" inside the query of an origin-form target is not mistaken for a scheme.
        if !rest.hasPrefix("/"), let scheme = rest.range(of: "://") {
            let afterAuthority = rest[scheme.upperBound...]
            rest = afterAuthority.firstIndex(of: "/").map { afterAuthority[$0...] } ?? "/"
        }
        return String(rest.prefix { $0 != "?" && $0 != "#" })
    }

    /// The query part of the target without `?`, percent-encoded as sent; `nil` when there is none.
    public var query: String? {
        guard let mark = target.firstIndex(of: "?") else { return nil }
        return String(target[target.index(after: mark)...].prefix { $0 != "#" })
    }

    /// The query items, percent-decoded (`+` is a space, as in HTML forms), in order.
    public var queryItems: [URLQueryItem] {
        query.map(Self.formItems) ?? []
    }

    /// The first value of the query item `name`, decoded; `nil` when it is absent.
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// The first value of the header field `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers[name]
    }

    /// The body decoded as UTF-8 (invalid bytes replaced).
    public var bodyText: String {
        String(decoding: body, as: UTF8.self)
    }

    /// The body parsed as `application/x-www-form-urlencoded` (OAuth token requests), in order.
    public var formItems: [URLQueryItem] {
        Self.formItems(bodyText)
    }

    /// The first value of the form field `name` in the body, decoded; `nil` when it is absent.
    public func formValue(_ name: String) -> String? {
        formItems.first { $0.name == name }?.value
    }

    /// Whether the client asked to close the connection after this request.
    var wantsClose: Bool {
        version == "HTTP/1.0" || headers.containsToken("close", in: "Connection")
    }

    /// Parses `a=1&b=x+y&c` (a value without `=` is `nil`); undecodable escapes stay as sent.
    static func formItems(_ text: String) -> [URLQueryItem] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (part: Substring) -> String in
                let spaced = part.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return URLQueryItem(name: decode(parts[0]), value: parts.count > 1 ? decode(parts[1]) : nil)
        }
    }
}
