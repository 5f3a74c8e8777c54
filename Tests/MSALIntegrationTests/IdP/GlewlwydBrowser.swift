import Foundation
import MSALNative

/// What a person does in a browser on glewlwyd's pages, done through its REST API with the
/// library's libcurl client over real HTTPS: sign in (`POST /api/auth/`, session cookie),
/// consent (`PUT /api/auth/grant/<client>`), load the authorize URL and stop at the redirect to
/// the app, and approve a device code on the verification page.
///
/// Shaped as a custom web view (``authorize(url:redirectPrefix:)`` receives the authorize URL and
/// the redirect URI prefix and returns the final redirect URL), so the interactive flow can use it
/// as its web view provider. Redirects are never followed; a request glewlwyd answers with its
/// own login page is an error, as a user who never finishes the page would be.
final class GlewlwydBrowser: Sendable {
    /// Why the browser could not finish.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The name of glewlwyd's session cookie (`session_key` in its configuration).
    static let sessionCookie = "GLEWLWYD2_SESSION_ID"

    let server: GlewlwydServer
    let username: String
    let password: String
    /// Whether the user accepts the consent page (grants the requested scopes before authorize).
    let consents: Bool

    private let client: CurlClient
    /// Cookies by name, in the order first set; all belong to the server's one origin.
    private let cookies = Locked<[(name: String, value: String)]>([])

    init(server: GlewlwydServer, username: String? = nil, password: String? = nil, consents: Bool = true) throws {
        self.server = server
        self.username = username ?? server.user
        self.password = password ?? server.password
        self.consents = consents
        client = try CurlClient()
    }

    /// Whether the browser holds a glewlwyd session.
    var isSignedIn: Bool {
        cookies.withLock { jar in jar.contains { $0.name == Self.sessionCookie } }
    }

    /// The `Cookie` header this browser sends to glewlwyd (empty without cookies), so another
    /// browser can carry on with its session.
    var cookieHeader: String {
        cookies.withLock { jar in jar.map { "\($0.name)=\($0.value)" }.joined(separator: "; ") }
    }

    /// Forgets every cookie (a new private window).
    func clearCookies() {
        cookies.withLock { $0.removeAll() }
    }

    /// Signs in with the user's password: `POST /api/auth/`, keeping the session cookie.
    func signIn() async throws {
        let body = try JSONSerialization.data(withJSONObject: ["username": username, "password": password])
        let response = try await send("POST", api("auth/"), json: body)
        guard response.status == 200, isSignedIn else {
            throw Failure(description: "signing in as \(username) answered HTTP \(response.status) \(text(response))")
        }
    }

    /// Accepts the consent page for `scopes`: `PUT /api/auth/grant/<client>` with the scopes
    /// separated by spaces (API.md says commas; glewlwyd 2.7.5 answers 401 to that).
    func grant(scopes: [String]) async throws {
        let body = try JSONSerialization.data(withJSONObject: ["scope": scopes.joined(separator: " ")])
        let client = server.clientId.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? server.clientId
        let response = try await send("PUT", api("auth/grant/\(client)"), json: body)
        guard response.status == 200 else {
            throw Failure(description: "granting \(scopes) answered HTTP \(response.status) \(text(response))")
        }
    }

    /// Loads `url` (an authorize request) as a user would, and returns the URL of the redirect to
    /// the app, the first `Location` that starts with `redirectPrefix`; an OAuth error redirect
    /// (`...?error=...`) is returned too, for the caller to read.
    ///
    /// Unless the request says `prompt=none` (no user present), the user signs in when the
    /// browser has no session and consents to the requested scopes; the request is then sent with
    /// `g_continue`, which tells glewlwyd its login page was completed. With `prompt=none` the
    /// request is sent as it is, with whatever session the browser has.
    ///
    /// - Throws: ``Failure`` when glewlwyd answers with anything but a redirect to the app (its
    ///   login page, an error status such as 403 for an unregistered redirect URI).
    func authorize(url: URL, redirectPrefix: String) async throws -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw Failure(description: "not a URL: \(url)")
        }
        let query = components.queryItems ?? []
        let prompt = query.first { $0.name == "prompt" }?.value
        if prompt != "none" {
            if !isSignedIn || prompt == "login" { try await signIn() }
            if consents {
                // The query is form-encoded: `+` is a space (URLComponents does not decode it).
                let scope = query.first { $0.name == "scope" }?.value?.replacingOccurrences(of: "+", with: " ")
                let scopes = scope?.split(separator: " ").map(String.init) ?? []
                try await grant(scopes: scopes)
            }
            components.queryItems = query + [URLQueryItem(name: "g_continue", value: nil)]
        }
        guard let request = components.url else { throw Failure(description: "cannot add g_continue to \(url)") }
        let response = try await send("GET", request)
        guard (300...399).contains(response.status), let location = header("Location", of: response) else {
            throw Failure(
                description: "authorize answered HTTP \(response.status) without a redirect \(text(response))")
        }
        guard location.hasPrefix(redirectPrefix), let redirect = URL(string: location) else {
            if location.contains("/login.html") {
                throw Failure(description: "glewlwyd wants its login page (user interaction): \(location)")
            }
            throw Failure(description: "authorize redirected elsewhere than \(redirectPrefix): \(location)")
        }
        return redirect
    }

    /// Enters `userCode` on the verification page (`verificationURI`, from the device authorization
    /// response) after signing in and consenting to `scopes`, as a user approving a device sign-in.
    func approveDevice(userCode: String, verificationURI: URL, scopes: [String]) async throws {
        if !isSignedIn { try await signIn() }
        if consents { try await grant(scopes: scopes) }
        guard var components = URLComponents(url: verificationURI, resolvingAgainstBaseURL: false) else {
            throw Failure(description: "not a URL: \(verificationURI)")
        }
        components.queryItems =
            (components.queryItems ?? []).filter { $0.name != "code" } + [
                URLQueryItem(name: "code", value: userCode), URLQueryItem(name: "g_continue", value: nil),
            ]
        guard let url = components.url else { throw Failure(description: "cannot build the verification URL") }
        let response = try await send("GET", url)
        // Success sends the browser to the login page's "device complete" screen.
        guard let location = header("Location", of: response), location.contains("prompt=deviceComplete") else {
            throw Failure(
                description: "approving \(userCode) answered HTTP \(response.status), Location "
                    + (header("Location", of: response) ?? "none") + " \(text(response))")
        }
    }

    // MARK: HTTP

    private func api(_ path: String) -> URL {
        server.baseURL.appendingPathComponent("api").appendingPathComponent(path)
    }

    /// Sends one request with the cookies and keeps the cookies the answer sets.
    private func send(_ method: String, _ url: URL, json: Data? = nil) async throws -> CurlResponse {
        var headers: [(name: String, value: String)] = []
        let cookieHeader = cookies.withLock { jar in jar.map { "\($0.name)=\($0.value)" }.joined(separator: "; ") }
        if !cookieHeader.isEmpty { headers.append(("Cookie", cookieHeader)) }
        if json != nil { headers.append(("Content-Type", "application/json")) }
        let response = try await client.perform(
            CurlRequest(
                url: url.absoluteString, method: method, headers: headers, body: json.map { [UInt8]($0) },
                caFile: server.caFile, connectTimeout: 5, timeout: 15))
        for (name, value) in response.headers where name.caseInsensitiveCompare("Set-Cookie") == .orderedSame {
            store(setCookie: value)
        }
        return response
    }

    /// Keeps `name=value` of a `Set-Cookie` value; an empty value or `Max-Age=0` deletes the cookie.
    private func store(setCookie: String) {
        let parts = setCookie.split(separator: ";", omittingEmptySubsequences: false)
        guard let pair = parts.first, let equals = pair.firstIndex(of: "=") else { return }
        let name = pair[..<equals].trimmingCharacters(in: .whitespaces)
        let value = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        let expired = parts.dropFirst().contains {
            $0.trimmingCharacters(in: .whitespaces).lowercased() == "max-age=0"
        }
        cookies.withLock { jar in
            jar.removeAll { $0.name == name }
            if !value.isEmpty && !expired { jar.append((name, value)) }
        }
    }

    private func header(_ name: String, of response: CurlResponse) -> String? {
        response.headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    private func text(_ response: CurlResponse) -> String {
        response.body.isEmpty ? "(empty body)" : String(decoding: response.body.prefix(300), as: UTF8.self)
    }
}
