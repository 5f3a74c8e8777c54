public import Foundation
public import MSAL
internal import MSALNative

/// A browser without a person, for tests and demos: a custom web view
/// (``/MSAL/MSALWebviewProvider``) that follows the authorize URL's redirects over real HTTPS with
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
/// for example). Without an answer from it, a page that submits its own `POST` form when it loads
/// (the `response_mode=form_post` page of Entra and other servers) is submitted as a browser
/// running its script would: the form's fields POSTed to its `action`. Anything else fails the
/// sign-in with ``TestSupportError``.
///
/// As a custom web view it can only return a URL, so a form that posts to the redirect URI fails
/// with ``TestSupportError`` (the library asks custom web views for `response_mode=query`). To
/// play the system browser instead (deliver a form_post to a loopback listener), call
/// ``browse(_:)-(URL)``.
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
    ///   is cancelled; ``TestSupportError`` when a request fails, the hops run out, a response is
    ///   neither a redirect nor answered by ``Configuration/onResponse`` nor a self-submitting form,
    ///   or such a form posts to the redirect URI (a custom web view cannot return a POST).
    public func authorize(startURL: URL, redirectURIPrefix: String) async throws -> URL {
        if let returnURL = configuration.returnURL { return returnURL }
        switch try await run(Request(url: startURL, headers: Self.browserHeaders), stopAt: redirectURIPrefix) {
        case .reached(let url): return url
        case .page(let response):
            throw TestSupportError(
                "ScriptedBrowser: \(response.request.method) \(response.request.url.absoluteString) answered "
                    + "\(response.status) without a redirect: \(response.bodyText.prefix(300))")
        }
    }

    /// Plays the system browser: loads `url`, follows redirects and submits self-submitting forms
    /// (a form_post answer is POSTed to its `action`, a loopback listener for example) until a page
    /// that is neither, and returns that last response (the listener's page).
    ///
    /// - Throws: `CancellationError` as ``authorize(startURL:redirectURIPrefix:)``;
    ///   ``TestSupportError`` when a request fails or the hops run out.
    @discardableResult
    public func browse(_ url: URL) async throws -> Response {
        try await browse(Request(url: url, headers: Self.browserHeaders))
    }

    /// ``browse(_:)-(URL)`` starting with `request` (to send again a request seen in ``responses``).
    @discardableResult
    public func browse(_ request: Request) async throws -> Response {
        switch try await run(request, stopAt: nil) {
        case .reached(let url): throw TestSupportError("ScriptedBrowser: stopped at \(url) without a page")
        case .page(let response): return response
        }
    }

    private enum Outcome {
        /// A URL starting with the prefix to stop at, not requested.
        case reached(URL)
        /// A response that is neither a redirect nor a form to submit.
        case page(Response)
    }

    private static let browserHeaders: [(name: String, value: String)] = [
        ("User-Agent", "MSALTestSupport.ScriptedBrowser")
    ]

    private func run(_ start: Request, stopAt redirectURIPrefix: String?) async throws -> Outcome {
        let client: CurlClient
        do {
            client = try CurlClient()
        } catch {
            throw TestSupportError("ScriptedBrowser: cannot create the HTTP client: \(error)")
        }
        var cookies: [String: [String: String]] = [:]
        let browserHeaders = Self.browserHeaders
        var next = start
        var hop = 0
        while true {
            if let redirectURIPrefix, Self.isRedirect(next.url, prefix: redirectURIPrefix) {
                guard next.method == "GET" else {
                    throw TestSupportError(
                        "ScriptedBrowser: the server answered with a form that POSTs to the redirect URI "
                            + "(response_mode=form_post); a custom web view only returns URLs. Use browse(_:) to play "
                            + "the system browser.")
                }
                return .reached(next.url)
            }
            try Task.checkCancellation()
            if let limit = configuration.cancelAfterHops, hop >= limit { throw CancellationError() }
            guard hop < configuration.maximumHops else {
                throw TestSupportError(
                    "ScriptedBrowser: \(configuration.maximumHops) requests without reaching "
                        + (redirectURIPrefix ?? "a page"))
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
            guard let following = configuration.onResponse?(response) ?? Self.selfSubmittingForm(response) else {
                return .page(response)
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

    /// The `POST` a browser makes on loading `response`: its first form, when the page is HTML
    /// whose form has `method="post"` and a script that submits it (`.submit()`); the hidden and
    /// other named inputs' values (HTML entities decoded) are the fields, the `action` (resolved
    /// against the page's URL) is the target.
    static func selfSubmittingForm(_ response: Response) -> Request? {
        // glewlwyd sends its form_post page without a Content-Type.
        let type = response.header("Content-Type")?.lowercased() ?? ""
        let text = response.bodyText
        let isHTML = type.contains("html") || (type.isEmpty && text.lowercased().contains("<html"))
        guard response.status == 200, isHTML, text.contains(".submit()") else { return nil }
        let tags = HTMLTags(text)
        guard let form = tags.first(where: { $0.name == "form" }), form.attributes["method"]?.lowercased() == "post",
            let action = form.attributes["action"], let target = URL(string: action, relativeTo: response.request.url)
        else { return nil }
        var fields: [(name: String, value: String)] = []
        for input in tags where input.name == "input" {
            guard let name = input.attributes["name"], !name.isEmpty,
                (input.attributes["type"]?.lowercased() ?? "text") != "submit"
            else { continue }
            fields.append((name, input.attributes["value"] ?? ""))
        }
        return Request.form(target.absoluteURL, fields)
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

extension ScriptedBrowser {
    /// The text of a POSIX shell script that plays the system browser with `curl` (for
    /// `$BROWSER` or ``/MSAL/MSALWebviewParameters/browserCommand``): it writes the URL it is given
    /// to `urlFile` (when set), loads it following redirects, and when the last page is a form that
    /// POSTs (a `response_mode=form_post` answer) submits that form's named inputs to its
    /// `action`, as a browser running the page's script would.
    ///
    /// - Parameters:
    ///   - curl: the curl executable.
    ///   - caFile: the PEM file of authorities to trust (the emulator's).
    ///   - connectTo: curl `--connect-to` entries (``EntraEmulator/connectTo``).
    ///   - urlFile: where the URL is written, or `nil`.
    ///   - extraArguments: more curl arguments, each passed as one word (for example a cookie).
    public static func curlScript(
        curl: String = "/usr/bin/curl", caFile: String, connectTo: [String] = [], urlFile: String? = nil,
        extraArguments: [String] = []
    ) -> String {
        func quoted(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let common =
            ([quoted(curl), "-sS", "--max-time", "10", "--cacert", quoted(caFile)]
            + connectTo.flatMap { ["--connect-to", quoted($0)] } + extraArguments.map(quoted)).joined(separator: " ")
        let record = urlFile.map { "printf '%s\\n' \"$1\" > \(quoted($0))\n" } ?? ""
        return """
            #!/bin/sh
            # Plays the browser: load "$1" following redirects, then submit a POST form if the page is one.
            set -e
            \(record)page=$(mktemp)
            trap 'rm -f "$page"' EXIT
            \(common) -L -o "$page" "$1"
            tags=$(tr '<' '\\n' < "$page")
            form=$(printf '%s\\n' "$tags" | grep -i '^form ' | head -n 1 || true)
            printf '%s' "$form" | grep -qi 'method="post"' || exit 0
            decode() { sed -e 's/&quot;/"/g' -e "s/&#39;/'/g" -e 's/&lt;/</g' -e 's/&gt;/>/g' -e 's/&amp;/\\&/g'; }
            action=$(printf '%s' "$form" | sed -n 's/.*[Aa][Cc][Tt][Ii][Oo][Nn]="\\([^"]*\\)".*/\\1/p' | decode)
            set --
            while IFS= read -r tag; do
                case $tag in
                input*|INPUT*)
                    name=$(printf '%s' "$tag" | sed -n 's/.* name="\\([^"]*\\)".*/\\1/p' | decode)
                    value=$(printf '%s' "$tag" | sed -n 's/.* value="\\([^"]*\\)".*/\\1/p' | decode)
                    if [ -n "$name" ]; then set -- "$@" --data-urlencode "$name=$value"; fi
                    ;;
                esac
            done <<EOF
            $tags
            EOF
            exec \(common) -o /dev/null "$@" "$action"

            """
    }
}

/// The start tags of an HTML page, with their attributes (names lower-cased, values with
/// entities decoded): just enough to read a form.
struct HTMLTags: Sequence {
    struct Tag {
        var name: String
        var attributes: [String: String]
    }

    private let tags: [Tag]

    init(_ html: String) {
        var tags: [Tag] = []
        var rest = Substring(html)
        while let open = rest.firstIndex(of: "<") {
            rest = rest[rest.index(after: open)...]
            guard let close = rest.firstIndex(of: ">") else { break }
            let inside = rest[..<close]
            rest = rest[rest.index(after: close)...]
            guard let first = inside.first, first.isLetter else { continue }
            tags.append(Self.parse(inside))
        }
        self.tags = tags
    }

    func makeIterator() -> IndexingIterator<[Tag]> {
        tags.makeIterator()
    }

    /// `name attr="v" attr='v' attr=v attr` (without the angle brackets).
    private static func parse(_ text: Substring) -> Tag {
        var characters = Array(text)
        if characters.last == "/" { characters.removeLast() }
        var index = 0
        func skipSpaces() {
            while index < characters.count, characters[index].isWhitespace { index += 1 }
        }
        func word() -> String {
            var result = ""
            while index < characters.count, !characters[index].isWhitespace, characters[index] != "=" {
                result.append(characters[index])
                index += 1
            }
            return result
        }
        let name = word().lowercased()
        var attributes: [String: String] = [:]
        while true {
            skipSpaces()
            guard index < characters.count else { break }
            let attribute = word().lowercased()
            guard !attribute.isEmpty else {
                index += 1
                continue
            }
            skipSpaces()
            var value = ""
            if index < characters.count, characters[index] == "=" {
                index += 1
                skipSpaces()
                if index < characters.count, characters[index] == "\"" || characters[index] == "'" {
                    let quote = characters[index]
                    index += 1
                    while index < characters.count, characters[index] != quote {
                        value.append(characters[index])
                        index += 1
                    }
                    index += 1
                } else {
                    while index < characters.count, !characters[index].isWhitespace {
                        value.append(characters[index])
                        index += 1
                    }
                }
            }
            if attributes[attribute] == nil { attributes[attribute] = decodeEntities(value) }
        }
        return Tag(name: name, attributes: attributes)
    }

    /// `&amp;`, `&quot;`, `&lt;`, `&gt;`, `&apos;` and numeric references decoded; others kept.
    static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            rest = rest[amp...]
            guard let semicolon = rest.firstIndex(of: ";"), rest.distance(from: amp, to: semicolon) <= 10 else {
                result.append("&")
                rest = rest.dropFirst()
                continue
            }
            let entity = rest[rest.index(after: amp)..<semicolon]
            var decoded: String?
            switch entity {
            case "amp": decoded = "&"
            case "quot": decoded = "\""
            case "lt": decoded = "<"
            case "gt": decoded = ">"
            case "apos": decoded = "'"
            default:
                if entity.hasPrefix("#x") || entity.hasPrefix("#X") {
                    decoded = UInt32(entity.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String($0) }
                } else if entity.hasPrefix("#") {
                    decoded = UInt32(entity.dropFirst()).flatMap(Unicode.Scalar.init).map { String($0) }
                }
            }
            if let decoded {
                result += decoded
                rest = rest[rest.index(after: semicolon)...]
            } else {
                result.append("&")
                rest = rest.dropFirst()
            }
        }
        return result + rest
    }
}
