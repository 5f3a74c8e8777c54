public import Foundation
import MSALNative

/// One HTTP request to a protected resource (an API), sent with a bearer token through the
/// application's own transport by
/// ``MSALPublicClientApplication/callProtectedResource(_:authorizationHeader:)``.
///
/// ```swift
/// var request = MSALProtectedResourceRequest(url: URL(string: "https://graph.microsoft.com/v1.0/me")!)
/// request.maximumResponseBodySize = 16 << 20
/// let response = try await application.callProtectedResource(request, authorizationHeader: result.authorizationHeader)
/// ```
public struct MSALProtectedResourceRequest: Sendable {
    /// The resource's URL: `https` (plain `http` only to a loopback host with
    /// ``allowsPlainHTTPLoopback``), without user name or password.
    public var url: URL
    /// `GET` (the default), `HEAD`, `POST`, `PUT`, `PATCH` or `DELETE`. A `HEAD` request has no
    /// body, and its answer none, whatever `Content-Length` it announces.
    public var httpMethod: String
    /// Headers to send, in order, such as `Content-Type` and `Accept`. Not `Authorization` (the
    /// token is passed on its own), `Host`, nor the ones that frame the message
    /// (`Content-Length`, `Transfer-Encoding`, `Connection`, `Expect`, ...). The transport adds
    /// `Accept: application/json` when none is given, and MSAL's client and correlation headers.
    public var headers: [(name: String, value: String)]
    /// The body, sent with a `Content-Length`; `nil` for none.
    public var body: Data?
    /// The largest response body accepted, in bytes; `nil` follows
    /// ``MSALHTTPConfig/maximumResponseBodySize`` (1 MiB by default). A larger body fails the
    /// call with `NSURLErrorDomain` -1103 while it is received.
    public var maximumResponseBodySize: Int?
    /// Whether the token may go over plain `http` to 127.0.0.1, ::1 or localhost (a local
    /// development server). Default `false`: `http` is refused whatever the host.
    public var allowsPlainHTTPLoopback: Bool

    /// A request to `url`.
    public init(
        url: URL, httpMethod: String = "GET", headers: [(name: String, value: String)] = [], body: Data? = nil
    ) {
        self.url = url
        self.httpMethod = httpMethod
        self.headers = headers
        self.body = body
        maximumResponseBodySize = nil
        allowsPlainHTTPLoopback = false
    }
}

/// A protected resource's answer, whatever its status, with the `Bearer` challenge of its
/// `WWW-Authenticate` header read.
public final class MSALProtectedResourceResponse: Sendable {
    /// The HTTP status code.
    public let statusCode: Int
    /// The response headers in the order received.
    public let headers: [(name: String, value: String)]
    /// The body as received (after content decoding).
    public let body: Data
    /// The `Bearer` challenge of the `WWW-Authenticate` header (a `401` or `403` answer), or
    /// `nil` when there is none or it does not follow RFC 9110. Pass it to
    /// ``MSALPublicClientApplication/acquireToken(forChallenge:with:)`` (when
    /// ``MSALWWWAuthenticateParameters/isClaimsChallenge``) and call once more.
    public let challenge: MSALWWWAuthenticateParameters?

    init(statusCode: Int, headers: [(name: String, value: String)], body: Data) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        let values = headers.filter { ASCII.equalsIgnoringCase($0.name, "WWW-Authenticate") }.map(\.value)
        challenge = values.isEmpty ? nil : try? MSALWWWAuthenticateParameters(headerValues: values)
    }

    /// The values of the header `name` (compared case-insensitively), in the order received.
    public func headerValues(_ name: String) -> [String] {
        headers.filter { ASCII.equalsIgnoringCase($0.name, name) }.map(\.value)
    }
}

extension MSALPublicClientApplication {
    /// Sends one request to a protected resource with `authorizationHeader` (an
    /// ``MSALResult/authorizationHeader``), through the application's transport: its certificate
    /// authorities, proxy, `connectTo` and limits, and the library's TLS policy. Returns the
    /// answer whatever its status; a `401` carries ``MSALProtectedResourceResponse/challenge``.
    ///
    /// The token goes to the URL's origin only: the request is refused before connecting when
    /// the URL is not `https` (plain `http` only to a loopback host with
    /// ``MSALProtectedResourceRequest/allowsPlainHTTPLoopback``) or carries user information,
    /// when a header could send it to another virtual host (`Host`) or split the message, and
    /// redirections are never followed (a `3xx` is returned as it is). The request is sent once,
    /// never retried (it may not be idempotent). Neither the token nor the body is logged.
    ///
    /// - Parameters:
    ///   - request: what to send.
    ///   - authorizationHeader: the `Authorization` value, `Bearer <token>`; `nil` sends none.
    /// - Throws: -50000 with -42000 when the request is refused (the message says why); the
    ///   transport's `NSURLErrorDomain` errors (-1103 for a body over the limit or headers over
    ///   64 KiB; -999 when the task is cancelled).
    public func callProtectedResource(_ request: MSALProtectedResourceRequest, authorizationHeader: String?)
        async throws -> MSALProtectedResourceResponse
    {
        let correlationId = CorrelationID.make()
        let plan: ProtectedResourceCallCheck.Plan
        switch ProtectedResourceCallCheck.plan(
            url: request.url, method: request.httpMethod.uppercased(), hasBody: request.body != nil,
            headerNames: request.headers.map(\.name),
            headerValues: request.headers.map(\.value), allowsPlainHTTPLoopback: request.allowsPlainHTTPLoopback)
        {
        case .success(let value): plan = value
        case .failure(let refusal):
            throw MSALErrors.make(
                .internalErrorInvalidParameter,
                "The request to \(request.url.withoutQuery) was not sent: \(refusal).",
                ErrorDetails(correlationId: correlationId))
        }
        var headers = request.headers
        if let authorizationHeader {
            guard authorizationHeader.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else {
                throw MSALErrors.make(
                    .internalErrorInvalidParameter,
                    "The request to \(request.url.withoutQuery) was not sent: the authorization header holds a "
                        + "control character.", ErrorDetails(correlationId: correlationId))
            }
            headers.append((name: "Authorization", value: authorizationHeader))
        }
        var message = HTTPRequest(
            method: plan.method, url: request.url, headers: headers, body: request.body.map { [UInt8]($0) },
            correlationId: correlationId)
        message.maximumResponseBodySize = request.maximumResponseBodySize.map { max(1, $0) }
        message.retries = false
        message.plainHTTPOrigin = plan.plainHTTPOrigin
        let response = try await context.transport.send(message)
        return MSALProtectedResourceResponse(
            statusCode: response.statusCode, headers: response.headers.fields, body: response.body)
    }

    /// The completion-block form of ``callProtectedResource(_:authorizationHeader:)``; the block
    /// runs on the thread that produced the answer.
    public func callProtectedResource(
        _ request: MSALProtectedResourceRequest, authorizationHeader: String?,
        completionBlock: @escaping @Sendable (MSALProtectedResourceResponse?, (any Error)?) -> Void
    ) {
        Task {
            do {
                completionBlock(try await callProtectedResource(request, authorizationHeader: authorizationHeader), nil)
            } catch {
                completionBlock(nil, error as NSError)
            }
        }
    }
}
