public import Foundation
public import MSAL
internal import MSALNative

/// A browser without a person, for tests and demos: a custom web view
/// (``MSAL/MSALWebviewProvider``) that follows the authorize URL's redirects over real HTTPS with
/// libcurl until one leads to the redirect URI, and returns that URL.
///
/// ```swift
/// let browser = ScriptedBrowser(caFile: server.certificateAuthority.certificateFile)
/// let webviewParameters = MSALWebviewParameters()
/// webviewParameters.customWebview = browser
/// ```
///
/// Each hop is one request; redirects (`301`, `302`, `303`, `307`, `308`) are followed by reading
/// `Location` (relative locations are resolved), cookies set by the server are sent back to the
/// same host, and the first URL that starts with the redirect URI prefix (compared without regard
/// to case) is returned without being requested. A response that is not a redirect goes to
/// ``Configuration/onResponse``, which may answer with the next request (to submit a sign-in form,
/// for example); without one the sign-in fails with ``TestSupportError``.
public final class ScriptedBrowser: MSALWebviewProvider {
    /// One request the browser is about to send. ``Configuration/onRequest`` may change it.
    public struct Request: Sendable {
        /// The URL (`http` or `https`).
        public var url: URL
        /// `GET` for the first hop and after `301`/`302`/`303`; kept after `307`/`308`.
        public var method: String
        /// Headers sent with the request (cookies are added after ``Configuration/onRequest``).
        public var headers: [(name: String, value: String)]
        /// The body, for `POST` requests made by ``Configuration/onResponse``.
        public var body: Data?
        /// The hop number, from 1.
        public internal(set) var hop: Int

        /// A request; the hop number is set when it is sent.
        public init(url: URL, method: String = "GET", headers: [(name: String, value: String)] = [], body: Data? = nil)
        {
            self.url = url
            self.method = method
            self.headers = headers
            self.body = body
            self.hop = 0
        }

        /// A form `POST` (`application/x-www-form-urlencoded`) of `fields` to `url`.
        public static func form(_ url: URL, _ fields: [(name: String, value: String)]) -> Request {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._*")
            let body = fields.map { field in
                let name = field.name.addingPercentEncoding(withAllowedCharacters: allowed) ?? field.name
                let value = field.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? field.value
                return name + "=" + value
            }.joined(separator: "&")
            return Request(
                url: url, method: "POST",
                headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Data(body.utf8))
        }
    }

    /// What the server answered to one hop.
    public struct Response: Sendable {
        /// The request that was sent.
        public var request: Request
        /// The HTTP status.
        public var status: Int
        /// The headers, in the order received.
        public var headers: [(name: String, value: String)]
        /// The body.
        public var body: Data

        /// The first header with `name` (case-insensitive).
        public func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }

        /// The body as UTF-8 text.
        public var bodyText: String { String(decoding: body, as: UTF8.self) }
    }

    /// How the browser behaves.
    public struct Configuration: Sendable {
        /// A PEM file of certificate authorities to trust (the emulator's), or `nil` for the system's.
        public var caFile: String?
        /// `HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT` entries (curl's `CONNECT_TO`), so a loopback
        /// server can answer for `login.microsoftonline.com:443`.
        public var connectTo: [String]
        /// The most requests before the sign-in fails (a redirect loop).
        public var maximumHops: Int
        /// When set, the browser is "closed" (throws `CancellationError`) after this many requests:
        /// 0 closes it before the first one.
        public var cancelAfterHops: Int?
        /// When set, returned at once without any request (the sign-in page "redirected" there).
        public var returnURL: URL?
        /// Called before each request; may inspect or alter it.
        public var onRequest: (@Sendable (inout Request) -> Void)?
        /// Called with a response that is not a redirect; returns the next request, or `nil` to
        /// fail the sign-in.
        public var onResponse: (@Sendable (Response) -> Request?)?
        /// Seconds each request may take.
        public var requestTimeout: Double

        /// A configuration; see the properties.
        public init(
            caFile: String? = nil,
            connectTo: [String] = [],
            maximumHops: Int = 20,
            cancelAfterHops: Int? = nil,
            returnURL: URL? = nil,
            onRequest: (@Sendable (inout Request) -> Void)? = nil,
            onResponse: (@Sendable (Response) -> Request?)? = nil,
            requestTimeout: Double = 30
        ) {
            self.caFile = caFile
            self.connectTo = connectTo
            self.maximumHops = maximumHops
            self.cancelAfterHops = cancelAfterHops
            self.returnURL = returnURL
            self.onRequest = onRequest
            self.onResponse = onResponse
            self.requestTimeout = requestTimeout
        }
    }

    /// The behaviour.
    public let configuration: Configuration
    private let log = Locked<[Response]>([])

    /// A browser with `configuration`.
    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// A browser that trusts `caFile` and follows redirects.
    public convenience init(caFile: String? = nil, connectTo: [String] = []) {
        self.init(configuration: Configuration(caFile: caFile, connectTo: connectTo))
    }

    /// Every response received so far, across sign-ins, in order.
    public var responses: [Response] {
        log.withLock { $0 }
    }

    /// Every URL requested so far, in order.
    public var visitedURLs: [URL] {
        responses.map(\.request.url)
    }

    /// Follows `startURL` until a URL starts with `redirectURIPrefix`, and returns that URL.
    ///
    /// - Throws: `CancellationError` after ``Configuration/cancelAfterHops`` requests or when the task
    ///   is cancelled; ``TestSupportError`` when a request fails, the hops run out, or a response is
    ///   neither a redirect nor answered by ``Configuration/onResponse``.
    public func authorize(startURL: URL, redirectURIPrefix: String) async throws -> URL {
        if let returnURL = configuration.returnURL { return returnURL }
        let client: CurlClient
        do {
            client = try CurlClient()
        } catch {
            throw TestSupportError("ScriptedBrowser: cannot create the HTTP client: \(error)")
        }
        var cookies: [String: [String: String]] = [:]
        let browserHeaders: [(name: String, value: String)] = [("User-Agent", "MSALTestSupport.ScriptedBrowser")]
        var next = Request(url: startURL, headers: browserHeaders)
        var hop = 0
        while true {
            if Self.isRedirect(next.url, prefix: redirectURIPrefix) { return next.url }
            try Task.checkCancellation()
            if let limit = configuration.cancelAfterHops, hop >= limit { throw CancellationError() }
            guard hop < configuration.maximumHops else {
                throw TestSupportError(
                    "ScriptedBrowser: \(configuration.maximumHops) requests without reaching \(redirectURIPrefix)")
            }
            hop += 1
            let unaltered = next
            var request = next
            request.hop = hop
            configuration.onRequest?(&request)
            let response = try await send(request, client: client, cookies: cookies)
            log.withLock { $0.append(response) }
            Self.store(response, in: &cookies)
            if [301, 302, 303, 307, 308].contains(response.status), let location = response.header("Location") {
                guard let target = URL(string: location, relativeTo: request.url)?.absoluteURL else {
                    throw TestSupportError("ScriptedBrowser: the Location '\(location)' is not a URL")
                }
                // 307 and 308 repeat the request (method, body) at the new URL; the others become a GET.
                // Changes the hook made apply to their own hop only.
                let keepsMethod = response.status == 307 || response.status == 308
                next =
                    keepsMethod
                    ? Request(url: target, method: unaltered.method, headers: unaltered.headers, body: unaltered.body)
                    : Request(url: target, headers: browserHeaders)
                continue
            }
            guard let following = configuration.onResponse?(response) else {
                throw TestSupportError(
                    "ScriptedBrowser: \(request.method) \(request.url.absoluteString) answered \(response.status) "
                        + "without a redirect: \(response.bodyText.prefix(300))")
            }
            next = following
        }
    }

    private func send(
        _ request: Request, client: CurlClient, cookies: [String: [String: String]]
    ) async throws -> Response {
        var headers = request.headers
        if let host = request.url.host?.lowercased(), let jar = cookies[host], !jar.isEmpty {
            headers.append(
                ("Cookie", jar.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")))
        }
        let curlRequest = CurlRequest(
            url: request.url.absoluteString, method: request.method, headers: headers,
            body: request.body.map { Array($0) }, caFile: configuration.caFile, connectTo: configuration.connectTo,
            connectTimeout: configuration.requestTimeout, timeout: configuration.requestTimeout)
        do {
            let response = try await client.perform(curlRequest)
            return Response(
                request: request, status: response.status, headers: response.headers, body: Data(response.body))
        } catch {
            if error.isCancellation { throw CancellationError() }
            throw TestSupportError("ScriptedBrowser: \(request.method) \(request.url.absoluteString) failed: \(error)")
        }
    }

    private static func isRedirect(_ url: URL, prefix: String) -> Bool {
        !prefix.isEmpty && url.absoluteString.lowercased().hasPrefix(prefix.lowercased())
    }

    /// Keeps `name=value` of each `Set-Cookie`, per host (attributes are ignored).
    private static func store(_ response: Response, in cookies: inout [String: [String: String]]) {
        guard let host = response.request.url.host?.lowercased() else { return }
        for header in response.headers where header.name.lowercased() == "set-cookie" {
            let pair = header.value.split(separator: ";", maxSplits: 1).first ?? ""
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { continue }
            let name = parts[0].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { continue }
            cookies[host, default: [:]][name] = parts[1].trimmingCharacters(in: .whitespaces)
        }
    }
}
