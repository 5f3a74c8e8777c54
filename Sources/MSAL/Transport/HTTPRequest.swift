package import Foundation

/// An HTTP request the library sends: to an authority's discovery, token or device-code endpoint,
/// or to a protected resource.
package struct HTTPRequest: Sendable {
    /// The HTTP method.
    enum Method: String, Sendable {
        case get = "GET"
        /// A `GET` without the body: the answer ends with its head.
        case head = "HEAD"
        case post = "POST"
        case put = "PUT"
        case patch = "PATCH"
        case delete = "DELETE"
    }

    var method: Method
    var url: URL
    /// Headers in the order they are sent; the transport adds the client and correlation headers.
    var headers: [(name: String, value: String)]
    /// The body bytes, sent with a `Content-Length`.
    var body: [UInt8]?
    /// Sent as `client-request-id` and attached to every log message of the request.
    var correlationId: UUID
    /// The largest response body accepted for this request; `nil` follows the transport's setting.
    var maximumResponseBodySize: Int?
    /// Whether the transport's retry policy applies; `false` sends the request exactly once (a
    /// call to a protected resource, which may not be idempotent).
    var retries = true
    /// A plain-HTTP loopback origin this request may carry a credential to, besides the
    /// transport's own (``PlainHTTPPolicy``): set only by a caller that checked the origin is
    /// loopback and that the app asked for it explicitly.
    var plainHTTPOrigin: HTTPOrigin?

    init(
        method: Method = .get,
        url: URL,
        headers: [(name: String, value: String)] = [],
        body: [UInt8]? = nil,
        correlationId: UUID = CorrelationID.make()
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.correlationId = correlationId
    }

    /// A `POST` with an `application/x-www-form-urlencoded` body (RFC 6749 Appendix B), as every
    /// OAuth token request is sent.
    package static func formPost(
        url: URL,
        parameters: [(name: String, value: String)],
        headers: [(name: String, value: String)] = [],
        correlationId: UUID = CorrelationID.make()
    ) -> HTTPRequest {
        var allHeaders = headers
        allHeaders.append(("Content-Type", "application/x-www-form-urlencoded"))
        return HTTPRequest(
            method: .post,
            url: url,
            headers: allHeaders,
            body: FormURLEncoding.encodedBytes(parameters),
            correlationId: correlationId
        )
    }
}

/// A response as received, whatever its status code.
package struct HTTPResponse: Sendable {
    package var statusCode: Int
    var headers: HTTPHeaders
    package var body: Data
    /// New connections opened for this response (0 when a kept-alive connection was reused).
    package var newConnections: Int = 0
}

/// Response headers with case-insensitive lookup; the first of repeated headers wins.
struct HTTPHeaders: Sendable {
    private(set) var fields: [(name: String, value: String)]

    init(_ fields: [(name: String, value: String)]) {
        self.fields = fields
    }

    /// The value of the first header named `name` (compared case-insensitively), or `nil`.
    subscript(name: String) -> String? {
        for field in fields where ASCII.equalsIgnoringCase(field.name, name) {
            return field.value
        }
        return nil
    }

    /// Every header as a dictionary (the first value of repeated names), as MSAL reports them
    /// under `MSALHTTPHeadersKey`.
    var dictionary: [String: String] {
        var result: [String: String] = [:]
        for field in fields where result[field.name] == nil {
            result[field.name] = field.value
        }
        return result
    }
}
