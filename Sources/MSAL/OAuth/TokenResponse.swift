import Foundation

/// A successful token endpoint response (RFC 6749 §5.1, with Entra's additions), with MSAL's
/// rules for its time fields.
struct TokenResponse: Sendable {
    /// `token_type`: always `Bearer` (absent means `Bearer`, as in MSAL for Python; any other
    /// value is refused, so a proof-of-possession or MAC token never travels as a bearer token).
    let tokenType: String
    /// `scope` as the server sent it (space-separated, server case), or `nil` when absent.
    let scope: String?
    /// `access_token`: never empty (RFC 6749 §5.1 requires it; an answer without one is refused).
    let accessToken: String
    /// `refresh_token`.
    let refreshToken: String?
    /// `id_token` (compact JWT).
    let idToken: String?
    /// `client_info` (base64url JSON with `uid` and `utid`), raw.
    let clientInfo: String?
    /// `foci`: the family id when the client belongs to a family of client ids.
    let familyId: String?
    /// When the access token expires, Unix seconds: `expires_on` wins over `expires_in`; missing
    /// → one hour.
    let expiresOnSeconds: Int64
    /// `ext_expires_on` / `ext_expires_in`: how long the token may be used while the service is down.
    let extendedExpiresOnSeconds: Int64?
    /// `refresh_on` / `refresh_in`: when to refresh proactively (only when the server says so).
    let refreshOnSeconds: Int64?
    /// `refresh_token_expires_in` (Entra sends it for some clients): when the refresh token
    /// stops being redeemable, in Unix seconds; `nil` when the server did not say.
    let refreshTokenExpiresOnSeconds: Int64?
    /// When the response was received, in whole Unix seconds (`cached_at`).
    let cachedAtSeconds: Int64
    /// `correlation_id`, when echoed.
    let correlationId: String?
    /// Every field of the body, for facts not modelled above.
    let fields: [String: JSONValue]

    /// The access token lifetime when the server gives none.
    static let defaultLifetime: Int64 = 3600

    /// ``expiresOnSeconds`` as a date.
    var expiresOn: Date { Date(timeIntervalSince1970: TimeInterval(expiresOnSeconds)) }
    /// ``extendedExpiresOnSeconds`` as a date.
    var extendedExpiresOn: Date? { extendedExpiresOnSeconds.map { Date(timeIntervalSince1970: TimeInterval($0)) } }
    /// ``refreshOnSeconds`` as a date.
    var refreshOn: Date? { refreshOnSeconds.map { Date(timeIntervalSince1970: TimeInterval($0)) } }
    /// ``cachedAtSeconds`` as a date.
    var cachedAt: Date { Date(timeIntervalSince1970: TimeInterval(cachedAtSeconds)) }

    /// Parses a 200 response body.
    ///
    /// Every time field goes through ``ServerNumber``: relative ones (`expires_in`,
    /// `ext_expires_in`, `refresh_in`, `refresh_token_expires_in`) must be lifetimes of 0 to 10 years, absolute ones
    /// (`expires_on`, `ext_expires_on`, `refresh_on`) Unix times between 1970 and 2100, each a
    /// JSON number or a numeric string.
    ///
    /// - Parameter now: the time the response arrived.
    /// - Throws: -50000 with internal -42600 when the body is not a JSON object, has no non-empty
    ///   `access_token`, has a `token_type` other than Bearer, or a time field that is not a
    ///   number in range (the message names the field); an OAuth error body is not a success and
    ///   is rejected too (callers parse error bodies with ``OAuthServerError``).
    init(body: Data, now: Date, correlationId: UUID? = nil) throws {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: body)
        } catch {
            throw Self.invalid("is not JSON (\(error))", correlationId)
        }
        guard let object = value.objectValue else { throw Self.invalid("is not a JSON object", correlationId) }
        if let error = object["error"]?.stringValue, !error.isEmpty {
            throw Self.invalid("is an error (\(error)), not a token", correlationId)
        }
        func string(_ key: String) -> String? {
            guard let text = object[key]?.stringValue, !text.isEmpty else { return nil }
            return text
        }
        /// A credential: RFC 6749 Appendix A allows only printable ASCII (VSCHAR) in tokens, and
        /// anything else (a line break, an escape) would let the server write into the app's
        /// `Authorization` header or terminal.
        func credential(_ key: String) throws -> String? {
            guard let text = string(key) else { return nil }
            guard text.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
                throw Self.invalid(
                    "has a \(key) with characters a token cannot hold (only printable ASCII is allowed)",
                    correlationId)
            }
            return text
        }
        guard let accessToken = try credential("access_token") else {
            throw Self.invalid("has no access_token (a success answer must carry a non-empty one)", correlationId)
        }
        switch object["token_type"] {
        case nil: break
        case .string(let type) where type.caseInsensitiveCompare("Bearer") == .orderedSame: break
        default:
            throw Self.invalid("has a token_type that is not Bearer (the only type this library uses)", correlationId)
        }
        let received = Self.wholeSeconds(now)
        func time(_ field: String, _ range: ServerNumber.Range) throws -> Int64? {
            try ServerNumber.read(
                field, of: object, in: range, document: "The token response", correlationId: correlationId)
        }
        let expiresOn = try time("expires_on", .epoch)
        let expiresIn = try time("expires_in", .lifetime)
        let extendedOn = try time("ext_expires_on", .epoch)
        let extendedIn = try time("ext_expires_in", .lifetime)
        let refreshOn = try time("refresh_on", .epoch)
        let refreshIn = try time("refresh_in", .lifetime)
        let refreshTokenExpiresIn = try time("refresh_token_expires_in", .lifetime)
        self.tokenType = "Bearer"
        self.scope = object["scope"]?.stringValue
        self.accessToken = accessToken
        self.refreshToken = try credential("refresh_token")
        self.idToken = try credential("id_token")
        self.clientInfo = string("client_info")
        self.familyId = string("foci")
        self.correlationId = string("correlation_id")
        self.cachedAtSeconds = received
        // Sums of a Unix time up to 2100 and a lifetime up to 10 years: far inside Int64.
        self.expiresOnSeconds = expiresOn ?? expiresIn.map { received + $0 } ?? received + Self.defaultLifetime
        self.extendedExpiresOnSeconds = extendedOn ?? extendedIn.map { received + $0 }
        self.refreshOnSeconds = refreshOn ?? refreshIn.map { received + $0 }
        self.refreshTokenExpiresOnSeconds = refreshTokenExpiresIn.map { received + $0 }
        self.fields = object
    }

    /// `now` in whole Unix seconds, clamped into ``ServerNumber/Range/epoch`` (the clock is local,
    /// but the conversion must not trap whatever it says).
    static func wholeSeconds(_ now: Date) -> Int64 {
        let range = ServerNumber.Range.epoch.bounds
        switch ServerNumber.check(now.timeIntervalSince1970, in: .epoch) {
        case .success(let seconds): return seconds
        case .failure: return now.timeIntervalSince1970 > 0 ? range.upperBound : range.lowerBound
        }
    }

    private static func invalid(_ problem: String, _ correlationId: UUID?) -> NSError {
        MSALErrors.make(
            .internalErrorInvalidResponse,
            "The token response \(problem). The identity provider sent an unexpected answer.",
            ErrorDetails(correlationId: correlationId))
    }
}
