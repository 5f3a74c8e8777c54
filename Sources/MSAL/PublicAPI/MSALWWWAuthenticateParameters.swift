public import Foundation

/// One challenge of a `WWW-Authenticate` field (RFC 9110 §11.6.1): an authentication scheme with
/// either a token68 or parameters.
///
/// Parameter names are case-insensitive; they are kept lowercased. Values are as sent, with the
/// quoted strings' backslash escapes resolved.
public final class MSALWWWAuthenticateChallenge: Sendable, CustomStringConvertible {
    /// The scheme as the server wrote it, such as `Bearer`; compare it case-insensitively.
    public let scheme: String
    /// The token68 after the scheme (`Negotiate <token68>`), when the challenge has one.
    public let token68: String?
    /// The parameters by lowercased name, such as `authorization_uri`, `error` or `claims`.
    public let parameters: [String: String]
    /// The lowercased parameter names in the order the server sent them.
    public let parameterNames: [String]

    init(_ challenge: WWWAuthenticate.Challenge) {
        scheme = challenge.scheme
        token68 = challenge.token68
        parameterNames = challenge.parameters.map(\.name)
        parameters = Dictionary(challenge.parameters.map { ($0.name, $0.value) }) { first, _ in first }
    }

    /// The value of the parameter `name`, compared case-insensitively.
    public func parameter(_ name: String) -> String? {
        parameters[name.lowercased()]
    }

    /// Whether the scheme is `scheme`, compared case-insensitively.
    public func hasScheme(_ scheme: String) -> Bool {
        self.scheme.lowercased() == scheme.lowercased()
    }

    /// The scheme and parameter names, without values (which may carry tokens): safe to log.
    public var description: String {
        let names = token68 != nil ? "token68" : parameterNames.joined(separator: ", ")
        return TerminalText.escaped("\(scheme) (\(names))")
    }
}

/// What a protected resource says it needs, read from the `WWW-Authenticate` header of its
/// `401` (or `403`) answer: the authority (Microsoft Entra's `authorization_uri`), the RFC 9728
/// `resource_metadata` URL, the scopes, the error and, for Continuous Access Evaluation and
/// Conditional Access, the claims to request.
///
/// ```swift
/// // An API answered 401.
/// let challenge = try MSALWWWAuthenticateParameters(headerValues: wwwAuthenticateValues)
/// if let claims = challenge.claims {
///     parameters.claimsRequest = try MSALClaimsRequest(jsonString: claims)
/// }
/// ```
///
/// The header is read strictly per RFC 9110: several challenges in one value and across values,
/// parameters as tokens or quoted strings, token68, names compared case-insensitively. A value
/// that does not follow the grammar (an unterminated quoted string, a control character, a
/// parameter named twice in one challenge), one over 64 KiB, or a `claims` parameter that is not
/// a base64 (or base64url) encoded JSON object throws -50000 with internal code -42600
/// (``MSALInternalError/internalErrorInvalidResponse``). Messages never quote the values.
public final class MSALWWWAuthenticateParameters: Sendable {
    /// Every challenge of the header, in order.
    public let challenges: [MSALWWWAuthenticateChallenge]
    /// The challenge these parameters were read from (the first one with the requested scheme).
    public let challenge: MSALWWWAuthenticateChallenge

    /// The authentication scheme of ``challenge``, such as `Bearer`.
    public var authenticationScheme: String { challenge.scheme }

    /// The raw `authorization_uri` parameter (Microsoft Entra), such as
    /// `https://login.microsoftonline.com/<tenant>/oauth2/authorize`.
    public var authorizationURI: String? { challenge.parameter("authorization_uri") }

    /// The `realm` parameter (Entra sends the tenant id or `""`).
    public var realm: String? { challenge.parameter("realm") }

    /// The authority named by `authorization_uri`, without its endpoint path
    /// (`https://login.microsoftonline.com/<tenant>`); a URI without a tenant takes a tenant
    /// ``realm``. `nil` when there is no `authorization_uri` or it is not an `https` URL.
    public let authority: URL?

    /// The RFC 9728 `resource_metadata` parameter: where the resource's Protected Resource
    /// Metadata is published. `nil` when absent or not an absolute `http(s)` URL.
    public let resourceMetadataURL: URL?

    /// The `scope` parameter split at spaces (RFC 6750 §3); empty when absent.
    public let scopes: [String]

    /// The `error` parameter, such as `invalid_token`, `insufficient_scope` or
    /// `insufficient_claims`.
    public var error: String? { challenge.parameter("error") }

    /// The `error_description` parameter, as the server wrote it (escape it before showing it in a
    /// terminal).
    public var errorDescription: String? { challenge.parameter("error_description") }

    /// The claims the resource asks for, decoded from the `claims` parameter: a JSON object such
    /// as `{"access_token":{"nbf":{"essential":true,"value":"1604106651"}}}`, as the server
    /// encoded it. Pass it to ``MSALClaimsRequest/init(jsonString:)``.
    public let claims: String?

    /// Whether the resource asks for more claims (`error="insufficient_claims"` or a `claims`
    /// parameter): get a new token with ``claims`` rather than retrying with a cached one.
    public var isClaimsChallenge: Bool {
        claims != nil || error?.lowercased() == "insufficient_claims"
    }

    /// Reads the values of the `WWW-Authenticate` header (one per header line; a value may hold
    /// several challenges) and selects the first challenge with the scheme `scheme`.
    ///
    /// - Parameters:
    ///   - headerValues: the header's values, in the order received.
    ///   - scheme: the scheme to read, compared case-insensitively. Default `Bearer`.
    /// - Throws: -50000 with internal code -42600 when the values do not follow RFC 9110, hold no
    ///   challenge with `scheme`, or carry a `claims` parameter that is not an encoded JSON object.
    public convenience init(headerValues: [String], scheme: String = "Bearer") throws {
        let challenges = try Self.challenges(fromHeaderValues: headerValues)
        try self.init(challenges: challenges, scheme: scheme)
    }

    /// Reads the `WWW-Authenticate` header from response headers (its name compared
    /// case-insensitively), as ``init(headerValues:scheme:)`` does.
    ///
    /// - Throws: as ``init(headerValues:scheme:)``; also when there is no such header.
    public convenience init(responseHeaders: [String: String], scheme: String = "Bearer") throws {
        let values = responseHeaders.filter { $0.key.lowercased() == "www-authenticate" }.sorted { $0.key < $1.key }
            .map(\.value)
        guard !values.isEmpty else {
            throw MSALErrors.make(
                .internalErrorInvalidResponse, "The response has no WWW-Authenticate header: it carries no challenge.")
        }
        try self.init(headerValues: values, scheme: scheme)
    }

    /// Every challenge of the header values, whatever their schemes.
    ///
    /// - Throws: -50000 with internal code -42600 when the values do not follow RFC 9110.
    public static func challenges(fromHeaderValues headerValues: [String]) throws -> [MSALWWWAuthenticateChallenge] {
        do {
            return try WWWAuthenticate.parse(headerValues).map(MSALWWWAuthenticateChallenge.init)
        } catch {
            throw MSALErrors.make(
                .internalErrorInvalidResponse,
                "The WWW-Authenticate header \(error): it does not follow RFC 9110 and was not used.")
        }
    }

    private init(challenges: [MSALWWWAuthenticateChallenge], scheme: String) throws {
        guard let challenge = challenges.first(where: { $0.hasScheme(scheme) }) else {
            let schemes = challenges.map(\.scheme).joined(separator: ", ")
            throw MSALErrors.make(
                .internalErrorInvalidResponse,
                TerminalText.escaped(
                    "The WWW-Authenticate header has no \(scheme) challenge (it has \(schemes))."))
        }
        self.challenges = challenges
        self.challenge = challenge
        if let value = challenge.parameter("claims") {
            do {
                claims = try ClaimsChallenge.decode(value)
            } catch {
                throw MSALErrors.make(
                    .internalErrorInvalidResponse,
                    "The \(TerminalText.escaped(challenge.scheme)) challenge's claims parameter \(error); "
                        + "the claims challenge cannot be answered.")
            }
        } else {
            claims = nil
        }
        authority = challenge.parameter("authorization_uri").flatMap {
            Authority.challengeAuthorityURL(authorizationURI: $0, realm: challenge.parameter("realm"))
        }
        resourceMetadataURL = challenge.parameter("resource_metadata").flatMap(Self.webURL)
        scopes = (challenge.parameter("scope") ?? "").split(separator: " ").map(String.init)
    }

    /// `text` as an absolute `http` or `https` URL with a host, else `nil`.
    private static func webURL(_ text: String) -> URL? {
        guard let components = URLComponents(string: text),
            let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
            let host = components.host, !host.isEmpty, components.user == nil, components.password == nil
        else { return nil }
        return components.url
    }
}
