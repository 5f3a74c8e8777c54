public import Foundation

/// An error as Microsoft Entra returns it: in a token-endpoint JSON body (`error`,
/// `error_description` starting `AADSTSnnnnn:`, `error_codes`, `timestamp`, `trace_id`,
/// `correlation_id`, `error_uri`, optional `suberror` and `claims`) or in an error redirect from
/// the authorize endpoint.
///
/// ```swift
/// let consent = EntraErrorResponse(error: "invalid_grant", code: 65001, suberror: "consent_required",
///     message: "The user or administrator has not consented to use the application.")
/// emulator.inject(.oauthError(consent), at: .token)
/// ```
public struct EntraErrorResponse: Error, Sendable, Hashable {
    /// The HTTP status of a token-endpoint answer (400; 401 for `invalid_client`).
    public var status: Int
    /// The OAuth error (`invalid_grant`, `interaction_required`, ...).
    public var error: String
    /// The code that prefixes the description: `AADSTS50076`, or for B2C `AADB2C90118`.
    public var code: String
    /// The text after the code in `error_description`.
    public var message: String
    /// `suberror` (`bad_token`, `basic_action`, `client_mismatch`, `protection_policy_required`...).
    public var suberror: String?
    /// `claims`: a claims challenge (JSON text) the client must send back.
    public var claims: String?
    /// Further top-level string fields (for example `adi`, the user's displayable id).
    public var extraFields: [String: String]

    /// An Entra error with an `AADSTS` code.
    public init(
        error: String,
        code: Int,
        message: String,
        suberror: String? = nil,
        claims: String? = nil,
        status: Int? = nil,
        extraFields: [String: String] = [:]
    ) {
        self.error = error
        self.code = "AADSTS\(code)"
        self.message = message
        self.suberror = suberror
        self.claims = claims
        self.status = status ?? (error == "invalid_client" ? 401 : 400)
        self.extraFields = extraFields
    }

    /// An Azure AD B2C error (`AADB2C90118: ...`): B2C sends `error` and `error_description` only.
    public init(error: String, b2cCode: String, message: String, status: Int = 400) {
        self.error = error
        self.code = b2cCode.hasPrefix("AADB2C") ? b2cCode : "AADB2C\(b2cCode)"
        self.message = message
        self.suberror = nil
        self.claims = nil
        self.status = status
        self.extraFields = [:]
    }

    /// Whether the code is a B2C code (no `error_codes`, `trace_id` fields).
    public var isB2C: Bool { code.hasPrefix("AADB2C") }

    /// The numeric part of an `AADSTS` code (`error_codes`), or `nil` for B2C codes.
    public var numericCode: Int? {
        code.hasPrefix("AADSTS") ? Int(code.dropFirst(6)) : nil
    }

    /// The full `error_description`, as Entra writes it: code, message, trace id, correlation id
    /// and timestamp on separate lines.
    public func description(traceId: String, correlationId: String, timestamp: Date) -> String {
        let time = Self.timestamp(timestamp)
        if isB2C {
            return "\(code): \(message)\r\nCorrelation ID: \(correlationId)\r\nTimestamp: \(time)"
        }
        return "\(code): \(message)\r\nTrace ID: \(traceId)\r\nCorrelation ID: \(correlationId)\r\nTimestamp: \(time)"
    }

    /// The token-endpoint JSON body.
    public func body(traceId: String, correlationId: String, timestamp: Date, host: String) -> [String: Any] {
        var body: [String: Any] = [
            "error": error,
            "error_description": description(traceId: traceId, correlationId: correlationId, timestamp: timestamp),
        ]
        if let number = numericCode {
            body["error_codes"] = [number]
            body["timestamp"] = Self.timestamp(timestamp)
            body["trace_id"] = traceId
            body["correlation_id"] = correlationId
            body["error_uri"] = "https://\(host)/error?code=\(number)"
        }
        if let suberror { body["suberror"] = suberror }
        if let claims { body["claims"] = claims }
        for (name, value) in extraFields { body[name] = value }
        return body
    }

    /// The query items of an authorize error redirect (`error`, `error_description`, `error_uri`,
    /// `state`, `correlation_id`, ...).
    func redirectItems(traceId: String, correlationId: String, timestamp: Date, host: String, state: String?)
        -> [(String, String)]
    {
        var items: [(String, String)] = [
            ("error", error),
            ("error_description", description(traceId: traceId, correlationId: correlationId, timestamp: timestamp)),
        ]
        if let number = numericCode {
            items.append(("error_uri", "https://\(host)/error?code=\(number)"))
        }
        if let suberror { items.append(("suberror", suberror)) }
        if let claims { items.append(("claims", claims)) }
        if let state { items.append(("state", state)) }
        if numericCode != nil { items.append(("correlation_id", correlationId)) }
        return items
    }

    /// `yyyy-MM-dd HH:mm:ssZ` in UTC, as Entra formats `timestamp`.
    static func timestamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss'Z'"
        return formatter.string(from: date)
    }
}
