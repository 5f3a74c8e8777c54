import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// Talks to an ``EntraEmulator`` through the real libcurl transport, trusting its CA and sending
/// its cloud host names to it (`CONNECT_TO`).
struct EmulatorHarness {
    let emulator: EntraEmulator
    let transport: CurlHTTPTransport

    /// The sample app and its loopback redirect URI.
    static let clientId = EmulatorClient.sample.clientId
    static let redirectURI = "http://localhost:50123"

    init(_ emulator: EntraEmulator, timeout: Double = 10) throws {
        self.emulator = emulator
        transport = CurlHTTPTransport(
            configuration: .init(
                caFile: emulator.certificateAuthority.certificateFile,
                connectTo: emulator.connectTo,
                retryPolicy: RetryPolicy(retryCount: 0),
                timeout: timeout
            )
        )
    }

    /// One signing key for the whole suite: making an RSA key costs a few hundred milliseconds.
    static let sharedSigningKey: EmulatorSigningKey? = try? EmulatorSigningKey()

    /// Starts an emulator with the suite's signing key and the changes `configure` makes.
    static func makeEmulator(_ configure: (inout EntraEmulator.Configuration) -> Void = { _ in }) throws
        -> EntraEmulator
    {
        var configuration = EntraEmulator.Configuration(signingKey: sharedSigningKey)
        configure(&configuration)
        return try EntraEmulator(configuration: configuration)
    }

    /// The loopback origin, `https://127.0.0.1:<port>`.
    var local: String { emulator.baseURL.absoluteString }

    func get(_ url: String, query: [(String, String)] = [], correlationId: UUID = UUID()) async throws -> HTTPResponse {
        var components = try XCTUnwrap(URLComponents(string: url))
        if !query.isEmpty {
            components.percentEncodedQuery = FormURLEncoding.encode(query.map { (name: $0.0, value: $0.1) })
        }
        return try await transport.send(
            HTTPRequest(url: try XCTUnwrap(components.url), correlationId: correlationId))
    }

    func post(_ url: String, _ parameters: [(String, String)]) async throws -> HTTPResponse {
        try await transport.send(
            .formPost(url: try XCTUnwrap(URL(string: url)), parameters: parameters.map { (name: $0.0, value: $0.1) }))
    }

    /// The response body as a JSON object.
    static func json(_ response: HTTPResponse, file: StaticString = #filePath, line: UInt = #line) throws
        -> [String: Any]
    {
        let object = try JSONSerialization.jsonObject(with: response.body)
        return try XCTUnwrap(object as? [String: Any], "not a JSON object", file: file, line: line)
    }

    /// Sends an authorize request and returns the redirect's parameters (query or fragment).
    func authorize(
        _ authority: String,
        clientId: String = clientId,
        redirectURI: String = redirectURI,
        scope: String = "https://graph.microsoft.com/User.Read openid profile offline_access",
        extra: [(String, String)] = [],
        pkce: PKCEPair? = PKCEPair(),
        file: StaticString = #filePath,
        line: UInt = #line
    ) async throws -> [String: String] {
        var query = [
            ("client_id", clientId), ("response_type", "code"), ("redirect_uri", redirectURI), ("scope", scope),
            ("state", "state-123"), ("nonce", "nonce-456"), ("client_info", "1"),
        ]
        if let pkce { query += [("code_challenge", pkce.challenge), ("code_challenge_method", "S256")] }
        query += extra
        let response = try await get("\(authority)/oauth2/v2.0/authorize", query: query)
        XCTAssertEqual(response.statusCode, 302, String(decoding: response.body, as: UTF8.self), file: file, line: line)
        let location = try XCTUnwrap(response.headers["Location"], file: file, line: line)
        XCTAssertTrue(location.hasPrefix(redirectURI), location, file: file, line: line)
        let components = try XCTUnwrap(URLComponents(string: location), file: file, line: line)
        var items = components.queryItems ?? []
        if let fragment = components.fragment {
            items += URLComponents(string: "?" + fragment)?.queryItems ?? []
        }
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    /// Redeems a code at `authority`'s token endpoint.
    func redeem(
        _ code: String,
        at authority: String,
        clientId: String = clientId,
        redirectURI: String = redirectURI,
        verifier: String?,
        scope: String = "https://graph.microsoft.com/User.Read openid profile offline_access"
    ) async throws -> HTTPResponse {
        var form = [
            ("client_id", clientId), ("grant_type", "authorization_code"), ("code", code),
            ("redirect_uri", redirectURI), ("scope", scope), ("client_info", "1"),
        ]
        if let verifier { form.append(("code_verifier", verifier)) }
        return try await post("\(authority)/oauth2/v2.0/token", form)
    }

    /// Signs in interactively and redeems the code: the token response.
    func signIn(
        _ authority: String,
        clientId: String = clientId,
        scope: String = "https://graph.microsoft.com/User.Read openid profile offline_access",
        extra: [(String, String)] = [],
        file: StaticString = #filePath,
        line: UInt = #line
    ) async throws -> [String: Any] {
        let pkce = PKCEPair()
        let redirect = try await authorize(
            authority, clientId: clientId, scope: scope, extra: extra, pkce: pkce, file: file, line: line)
        let code = try XCTUnwrap(redirect["code"], "no code: \(redirect)", file: file, line: line)
        let response = try await redeem(code, at: authority, clientId: clientId, verifier: pkce.verifier, scope: scope)
        XCTAssertEqual(response.statusCode, 200, String(decoding: response.body, as: UTF8.self), file: file, line: line)
        return try Self.json(response)
    }

    /// Redeems a refresh token.
    func refresh(
        _ refreshToken: String,
        at authority: String,
        clientId: String = clientId,
        scope: String = "https://graph.microsoft.com/User.Read openid profile offline_access"
    ) async throws -> HTTPResponse {
        try await post(
            "\(authority)/oauth2/v2.0/token",
            [
                ("client_id", clientId), ("grant_type", "refresh_token"), ("refresh_token", refreshToken),
                ("scope", scope), ("client_info", "1"),
            ])
    }

    /// Claims of a JWT (signature not checked).
    static func claims(_ token: Any?, file: StaticString = #filePath, line: UInt = #line) throws -> [String: JSONValue]
    {
        let text = try XCTUnwrap(token as? String, "no token", file: file, line: line)
        return try JWT(compact: text).payload
    }

    /// Decodes `client_info`.
    static func clientInfo(_ value: Any?, file: StaticString = #filePath, line: UInt = #line) throws -> [String: String]
    {
        let text = try XCTUnwrap(value as? String, "no client_info", file: file, line: line)
        let bytes = try XCTUnwrap(Base64URL.decode(text), file: file, line: line)
        return try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(bytes)) as? [String: String], file: file, line: line)
    }

    /// Asserts an Entra error body: status, `error`, the AADSTS code and its fields.
    @discardableResult
    static func assertEntraError(
        _ response: HTTPResponse,
        status: Int = 400,
        error: String,
        code: Int,
        suberror: String? = nil,
        file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> [String: Any] {
        XCTAssertEqual(response.statusCode, status, file: file, line: line)
        let body = try json(response, file: file, line: line)
        XCTAssertEqual(body["error"] as? String, error, file: file, line: line)
        let description = body["error_description"] as? String ?? ""
        XCTAssertTrue(description.hasPrefix("AADSTS\(code): "), description, file: file, line: line)
        XCTAssertTrue(description.contains("\r\nTrace ID: "), file: file, line: line)
        XCTAssertEqual(body["error_codes"] as? [Int], [code], file: file, line: line)
        XCTAssertNotNil(body["timestamp"] as? String, file: file, line: line)
        XCTAssertNotNil(body["trace_id"] as? String, file: file, line: line)
        XCTAssertNotNil(body["correlation_id"] as? String, file: file, line: line)
        XCTAssertEqual(body["suberror"] as? String, suberror, file: file, line: line)
        return body
    }
}

/// A PKCE verifier and its S256 challenge.
struct PKCEPair {
    let verifier: String
    let challenge: String

    init() {
        verifier = Base64URL.encode((try? SecureRandom.bytes(32)) ?? Array(repeating: 7, count: 32))
        challenge = Base64URL.encode(SHA256.hash(verifier))
    }
}
