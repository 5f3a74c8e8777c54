import Foundation

/// A successful token endpoint response (RFC 6749 §5.1, with Entra's additions), with MSAL's
/// rules for its time fields.
struct TokenResponse: Sendable {
    /// `token_type` (`Bearer` when absent).
    let tokenType: String
    /// `scope` as the server sent it (space-separated, server case), or `nil` when absent.
    let scope: String?
    /// `access_token`, or `nil` when the server returned none (an id_token-only response).
    let accessToken: String?
    /// `refresh_token`.
    let refreshToken: String?
    /// `id_token` (compact JWT).
    let idToken: String?
    /// `client_info` (base64url JSON with `uid` and `utid`), raw.
    let clientInfo: String?
    /// `foci`: the family id when the client belongs to a family of client ids.
    let familyId: String?
    /// When the access token expires: `expires_on` (epoch) wins over `expires_in`; missing → one hour.
    let expiresOn: Date
    /// `ext_expires_on` / `ext_expires_in`: how long the token may be used while the service is down.
    let extendedExpiresOn: Date?
    /// `refresh_on` / `refresh_in`: when to refresh proactively (only when the server says so).
    let refreshOn: Date?
    /// When the response was received, in whole seconds (`cached_at`).
    let cachedAt: Date
    /// `correlation_id`, when echoed.
    let correlationId: String?
    /// Every field of the body, for facts not modelled above.
    let fields: [String: JSONValue]

    /// The access token lifetime when the server gives none.
    static let defaultLifetime: TimeInterval = 3600

    /// Parses a 200 response body.
    ///
    /// - Parameter now: the time the response arrived.
    /// - Throws: -50000 with internal -42600 when the body is not a JSON object, or has neither an
    ///   access token nor an id token; an OAuth error body is not a success and is rejected too
    ///   (callers parse error bodies with ``OAuthServerError``).
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
        let accessToken = string("access_token")
        let idToken = string("id_token")
        guard accessToken != nil || idToken != nil else {
            throw Self.invalid("has neither access_token nor id_token", correlationId)
        }
        let received = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        self.tokenType = string("token_type") ?? "Bearer"
        self.scope = object["scope"]?.stringValue
        self.accessToken = accessToken
        self.refreshToken = string("refresh_token")
        self.idToken = idToken
        self.clientInfo = string("client_info")
        self.familyId = string("foci")
        self.correlationId = string("correlation_id")
        self.cachedAt = received

        let expiresOn = Self.seconds(object["expires_on"]).map { Date(timeIntervalSince1970: $0) }
        let expiresIn = Self.seconds(object["expires_in"]).map { received.addingTimeInterval($0) }
        self.expiresOn = expiresOn ?? expiresIn ?? received.addingTimeInterval(Self.defaultLifetime)
        self.extendedExpiresOn =
            Self.seconds(object["ext_expires_on"]).map { Date(timeIntervalSince1970: $0) }
            ?? Self.seconds(object["ext_expires_in"]).map { received.addingTimeInterval($0) }
        self.refreshOn =
            Self.seconds(object["refresh_on"]).map { Date(timeIntervalSince1970: $0) }
            ?? Self.seconds(object["refresh_in"]).map { received.addingTimeInterval($0) }
        self.fields = object
    }

    /// A number of seconds given as a JSON number or a numeric string.
    private static func seconds(_ value: JSONValue?) -> TimeInterval? {
        switch value {
        case .number(let number): number.doubleValue.isFinite ? number.doubleValue : nil
        case .string(let text): Double(text.trimmingCharacters(in: .whitespaces)).flatMap { $0.isFinite ? $0 : nil }
        default: nil
        }
    }

    private static func invalid(_ problem: String, _ correlationId: UUID?) -> NSError {
        MSALErrors.make(
            .internalErrorInvalidResponse,
            "The token response \(problem). The identity provider sent an unexpected answer.",
            ErrorDetails(correlationId: correlationId))
    }
}
