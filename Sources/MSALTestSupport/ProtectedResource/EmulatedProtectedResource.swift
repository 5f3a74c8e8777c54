public import Foundation
internal import MSALNative

/// A Microsoft Graph-like API on loopback HTTPS that accepts the access tokens of an
/// ``EntraEmulator``: `GET /v1.0/me` answers the signed-in user's profile when the bearer token is
/// signed by the emulator's key, is for ``audience``, is not expired on the emulator's clock and
/// carries ``requiredScope``. Otherwise it answers as Microsoft Entra protected APIs do: `401`
/// with a `WWW-Authenticate` challenge (`invalid_token`), or `403` (`insufficient_scope`).
///
/// ``requireTokens(issuedAtOrAfter:)`` makes it behave like a resource under Continuous Access
/// Evaluation after a revocation event: tokens issued before that moment get `401` with
/// `error="insufficient_claims"` and a base64 `claims` challenge
/// (`{"access_token":{"nbf":{"essential":true,"value":"<unix time>"}}}`), until the app brings a
/// newer token.
///
/// ```swift
/// let resource = try EmulatedProtectedResource(emulator: emulator)
/// defer { resource.stop() }
/// // GET resource.meURL with "Authorization: Bearer <token>"; trust emulator.certificateAuthority.
/// ```
///
/// ``mcp(emulator:authorizationServer:requiredScope:)`` makes an MCP-style resource instead: its
/// identifier is its own URL (`https://127.0.0.1:<port>/mcp`), it publishes OAuth 2.0 Protected
/// Resource Metadata (RFC 9728) naming its authorization server, and its challenges carry
/// `resource_metadata`.
///
/// Its certificate comes from the emulator's certificate authority, so an app that trusts the
/// emulator trusts it too.
public final class EmulatedProtectedResource: Sendable {
    /// The resource identifier tokens must be issued for (their `aud`).
    public var audience: String { state.withLock { $0.audience } }
    /// The scope name a token must carry in `scp` (`nil` accepts any).
    public let requiredScope: String?
    /// The authority named in challenges (`authorization_uri`, without `/oauth2/authorize`).
    public let authority: URL
    /// The host names the resource also answers for (see ``connectTo``).
    public let hostNames: [String]

    private let server: LoopbackHTTPSServer
    private let state: Locked<State>

    private struct State {
        var audience: String
        /// For an MCP-style resource: the path it serves and the authorization server it names.
        var mcp: (path: String, authorizationServer: String)?
        var issuedAtOrAfter: Date?
        var accepted = 0
        var challenged = 0
    }

    /// Starts the Graph-like API.
    ///
    /// - Parameters:
    ///   - emulator: the emulator whose tokens are accepted (its signing key and clock).
    ///   - audience: the `aud` tokens must have; default Microsoft Graph's.
    ///   - requiredScope: the scope a token must carry; default `User.Read`.
    ///   - authority: the authority challenges name; default `https://login.microsoftonline.com/common`.
    ///   - hostNames: host names the resource also answers for, such as `graph.microsoft.com`:
    ///     its certificate names them too, and ``connectTo`` sends them to it.
    /// - Throws: ``TestSupportError`` when the server cannot start.
    public convenience init(
        emulator: EntraEmulator, audience: String = "https://graph.microsoft.com", requiredScope: String? = "User.Read",
        authority: URL = URL(string: "https://login.microsoftonline.com/common")!, hostNames: [String] = []
    ) throws {
        try self.init(
            emulator: emulator, audience: audience, requiredScope: requiredScope, authority: authority, mcp: nil,
            hostNames: hostNames)
    }

    /// Starts an MCP-style resource at `/mcp`, whose identifier is `https://127.0.0.1:<port>/mcp`
    /// (see ``audience``) and whose RFC 9728 metadata, at
    /// `/.well-known/oauth-protected-resource/mcp`, names `authorizationServer`.
    ///
    /// Register the resource with the app's client in the emulator (``EmulatorClient/permissions``
    /// keyed by ``audience``) so that `<audience>/.default` is granted.
    ///
    /// - Parameters:
    ///   - emulator: the emulator whose tokens are accepted (its signing key and clock).
    ///   - authorizationServer: the issuer to publish, such as
    ///     `https://login.microsoftonline.com/<tenant>/v2.0`.
    ///   - requiredScope: the scope a token must carry; `nil` accepts any.
    /// - Returns: the running resource.
    /// - Throws: ``TestSupportError`` when the server cannot start.
    public static func mcp(
        emulator: EntraEmulator, authorizationServer: URL, requiredScope: String? = nil
    ) throws -> EmulatedProtectedResource {
        try EmulatedProtectedResource(
            emulator: emulator, audience: "", requiredScope: requiredScope,
            authority: URL(string: "https://login.microsoftonline.com/common")!,
            mcp: ("/mcp", authorizationServer.absoluteString), hostNames: [])
    }

    private init(
        emulator: EntraEmulator, audience: String, requiredScope: String?, authority: URL,
        mcp: (path: String, authorizationServer: String)?, hostNames: [String]
    ) throws {
        let jwk = emulator.signingKeyJWK
        let key: JSONWebKey
        do {
            key = try JSONWebKey(kty: "RSA", n: jwk["n"], e: jwk["e"], kid: jwk["kid"], alg: "RS256")
        } catch {
            throw TestSupportError("cannot read the emulator's signing key: \(error)")
        }
        let state = Locked(State(audience: audience, mcp: mcp))
        let keyID = jwk["kid"]
        self.requiredScope = requiredScope
        self.authority = authority
        self.state = state
        self.hostNames = hostNames
        let certificate =
            hostNames.isEmpty
            ? nil : try emulator.certificateAuthority.issueCertificate(dnsNames: ["localhost"] + hostNames)
        server = try LoopbackHTTPSServer(
            certificateAuthority: emulator.certificateAuthority, certificate: certificate
        ) { request in
            let (audience, mcp, required) = state.withLock { ($0.audience, $0.mcp, $0.issuedAtOrAfter) }
            let metadataPath = mcp.map { "/.well-known/oauth-protected-resource" + $0.path }
            if request.method == "GET", let mcp, request.path == metadataPath {
                return .respond(
                    .json([
                        "resource": audience, "authorization_servers": [mcp.authorizationServer],
                        "scopes_supported": requiredScope.map { ["\(audience)/\($0)"] } ?? [],
                        "bearer_methods_supported": ["header"],
                    ]))
            }
            let served = mcp.map { request.path == $0.path } ?? (request.method == "GET" && request.path == "/v1.0/me")
            guard served else {
                return .respond(.json(status: 404, ["error": ["code": "Request_ResourceNotFound"]]))
            }
            let validator = BearerTokenValidator(
                key: key, keyID: keyID, audience: audience, requiredScope: requiredScope)
            switch validator.check(
                authorization: request.header("Authorization"), now: emulator.now, issuedAtOrAfter: required)
            {
            case .accepted(let claims):
                state.withLock { $0.accepted += 1 }
                return .respond(
                    .json([
                        "id": claims["oid"] as? String ?? "", "displayName": claims["name"] as? String ?? "",
                        "userPrincipalName": claims["preferred_username"] as? String ?? "",
                    ]))
            case .refused(let refusal):
                state.withLock { $0.challenged += 1 }
                let writer = ChallengeWriter(
                    authority: mcp == nil ? authority : nil, audience: audience, requiredScope: requiredScope,
                    resourceMetadata: mcp.flatMap { mcp in
                        metadataPath.map { String(audience.dropLast(mcp.path.count)) + $0 }
                    })
                return .respond(writer.response(for: refusal, issuedAtOrAfter: required))
            }
        }
        if let mcp {
            state.withLock { $0.audience = server.baseURL.absoluteString + mcp.path }
        }
    }

    deinit {
        server.stop()
    }

    /// `https://127.0.0.1:<port>`.
    public var baseURL: URL { server.baseURL }

    /// curl `CONNECT_TO` entries (`graph.microsoft.com:443:127.0.0.1:<port>`) sending each of
    /// ``hostNames`` to the resource; give them to the app's `connectTo` beside the emulator's.
    public var connectTo: [String] {
        hostNames.map { "\($0):443:127.0.0.1:\(server.port)" }
    }

    /// `<baseURL>/v1.0/me` (the Graph-like API's one route).
    public var meURL: URL { server.baseURL.appendingPathComponent("v1.0/me") }

    /// For an MCP-style resource, its URL (the same as ``audience``); else ``meURL``.
    public var resourceURL: URL {
        let mcpPath = state.withLock { $0.mcp?.path }
        return mcpPath.map { server.baseURL.appendingPathComponent(String($0.dropFirst())) } ?? meURL
    }

    /// Requests answered `200` so far.
    public var acceptedRequests: Int { state.withLock { $0.accepted } }

    /// Requests answered with a challenge (`401` or `403`) so far.
    public var challengedRequests: Int { state.withLock { $0.challenged } }

    /// From now on, tokens issued (`iat`) before `date` get a claims challenge; `nil` lifts it.
    public func requireTokens(issuedAtOrAfter date: Date?) {
        state.withLock { $0.issuedAtOrAfter = date }
    }

    /// Stops the server (also done when the resource is released).
    public func stop() {
        server.stop()
    }
}

/// Why a token was refused.
enum BearerTokenRefusal: Equatable {
    /// No bearer token, or one that is not a valid token for this resource.
    case invalidToken(String)
    /// Valid, but without the required scope.
    case insufficientScope
    /// Valid, but issued before the resource's revocation moment.
    case insufficientClaims
}

/// Checks a bearer token against the emulator's key, the audience, the clock and the scope.
struct BearerTokenValidator: Sendable {
    enum Verdict {
        case accepted([String: Any])
        case refused(BearerTokenRefusal)
    }

    let key: JSONWebKey
    let keyID: String?
    let audience: String
    let requiredScope: String?

    func check(authorization: String?, now: Date, issuedAtOrAfter: Date?) -> Verdict {
        guard let authorization, authorization.count > 7, authorization.prefix(7).lowercased() == "bearer " else {
            return .refused(.invalidToken("No bearer token was sent."))
        }
        let parts = authorization.dropFirst(7).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(String(parts[0])),
            let payloadBytes = Base64URL.decode(String(parts[1])), let signature = Base64URL.decode(String(parts[2])),
            let header = try? JSONSerialization.jsonObject(with: Data(headerBytes)) as? [String: Any],
            let claims = try? JSONSerialization.jsonObject(with: Data(payloadBytes)) as? [String: Any]
        else { return .refused(.invalidToken("The token is not a JWT.")) }
        guard header["alg"] as? String == "RS256", header["kid"] as? String == keyID else {
            return .refused(.invalidToken("The token is not signed with the expected key."))
        }
        let input = Array("\(parts[0]).\(parts[1])".utf8)
        guard (try? key.verify(signature: signature, message: input, algorithm: "RS256")) == true else {
            return .refused(.invalidToken("The token's signature is invalid."))
        }
        guard claims["aud"] as? String == audience else {
            return .refused(.invalidToken("The token is for another audience."))
        }
        let time = now.timeIntervalSince1970
        guard let expiry = (claims["exp"] as? NSNumber)?.doubleValue, expiry > time else {
            return .refused(.invalidToken("The token is expired."))
        }
        if let notBefore = (claims["nbf"] as? NSNumber)?.doubleValue, notBefore > time + 300 {
            return .refused(.invalidToken("The token is not valid yet."))
        }
        if let requiredScope {
            let scopes = (claims["scp"] as? String ?? "").split(separator: " ").map(String.init)
            guard scopes.contains(where: { $0.lowercased() == requiredScope.lowercased() }) else {
                return .refused(.insufficientScope)
            }
        }
        if let issuedAtOrAfter {
            guard let issued = (claims["iat"] as? NSNumber)?.doubleValue,
                issued >= issuedAtOrAfter.timeIntervalSince1970.rounded(.down)
            else { return .refused(.insufficientClaims) }
        }
        return .accepted(claims)
    }
}

/// The answers Microsoft Entra protected APIs give to refused tokens.
struct ChallengeWriter: Sendable {
    /// The Entra authority to name (`authorization_uri`), or `nil`.
    let authority: URL?
    let audience: String
    let requiredScope: String?
    /// The RFC 9728 metadata URL to name (`resource_metadata`), or `nil`.
    var resourceMetadata: String?

    func response(for refusal: BearerTokenRefusal, issuedAtOrAfter: Date?) -> HTTPServerResponse {
        var parameters: [(String, String)] = []
        if let authority {
            parameters += [("realm", ""), ("authorization_uri", authority.absoluteString + "/oauth2/authorize")]
        }
        if let resourceMetadata { parameters.append(("resource_metadata", resourceMetadata)) }
        let status: Int
        let message: String
        switch refusal {
        case .invalidToken(let reason):
            status = 401
            message = reason
            parameters += [("error", "invalid_token"), ("error_description", reason)]
        case .insufficientScope:
            status = 403
            message = "The token lacks the required scope."
            let scope = requiredScope.map { "\(audience)/\($0)" } ?? ""
            parameters += [("error", "insufficient_scope"), ("scope", scope)]
        case .insufficientClaims:
            status = 401
            message = "Continuous access evaluation resulted in challenge with result: InteractionRequired"
            let value = String(Int64((issuedAtOrAfter ?? Date()).timeIntervalSince1970.rounded(.down)))
            let claims = #"{"access_token":{"nbf":{"essential":true, "value":"\#(value)"}}}"#
            parameters += [
                ("error", "insufficient_claims"), ("claims", Data(claims.utf8).base64EncodedString()),
            ]
        }
        let header =
            "Bearer "
            + parameters.map { name, value in
                let escaped = value.replacingOccurrences(of: "\\", with: "\\\\")
                    .replacingOccurrences(of: "\"", with: "\\\"")
                return "\(name)=\"\(escaped)\""
            }.joined(separator: ", ")
        return .json(
            status: status, ["error": ["code": "InvalidAuthenticationToken", "message": message]],
            headers: ["WWW-Authenticate": header])
    }
}
