import Foundation

/// The device authorization response (RFC 8628 §3.2): what the user must do, and how to poll.
struct DeviceAuthorization: Sendable {
    /// `device_code`: the secret the client polls with.
    let deviceCode: String
    /// `user_code`: what the user types.
    let userCode: String
    /// `verification_uri` (Entra also sent `verification_url` in the past).
    let verificationURI: URL
    /// `verification_uri_complete`, when the server offers one.
    let verificationURIComplete: URL?
    /// `message`: ready-made instructions for the user, when given.
    let message: String?
    /// When the codes expire (`expires_in` after the response: 1 s to 10 years, see ``ServerNumber``).
    let expiresOn: Date
    /// Seconds between polls (`interval`, default 5; 0 to 3600 accepted, then at most 60 used).
    let interval: TimeInterval

    /// Parses a 200 response body.
    ///
    /// - Throws: -50000 with internal -42600 when a required field is missing or malformed, or
    ///   `expires_in` or `interval` is not a number in its ``ServerNumber`` range.
    init(body: Data, now: Date, correlationId: UUID? = nil) throws {
        guard let object = (try? JSONValue(parsing: body))?.objectValue else {
            throw Self.invalid("is not a JSON object", correlationId)
        }
        func string(_ key: String) -> String? {
            guard let text = object[key]?.stringValue, !text.isEmpty else { return nil }
            return text
        }
        func seconds(_ key: String, _ range: ServerNumber.Range) throws -> Int64? {
            try ServerNumber.read(
                key, of: object, in: range, document: "The device authorization response",
                correlationId: correlationId)
        }
        guard let deviceCode = string("device_code"), let userCode = string("user_code") else {
            throw Self.invalid("lacks device_code or user_code", correlationId)
        }
        guard let uriText = string("verification_uri") ?? string("verification_url"), let uri = URL(string: uriText),
            uri.scheme?.lowercased() == "https" || uri.scheme?.lowercased() == "http"
        else {
            throw Self.invalid("lacks a verification_uri", correlationId)
        }
        guard let expiresIn = try seconds("expires_in", .lifetime), expiresIn > 0 else {
            throw Self.invalid("lacks a positive expires_in", correlationId)
        }
        let interval = try seconds("interval", .interval) ?? 5
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = uri
        self.verificationURIComplete = string("verification_uri_complete").flatMap(URL.init(string:))
        self.message = string("message")
        self.expiresOn = now.addingTimeInterval(TimeInterval(expiresIn))
        self.interval = TimeInterval(min(interval, 60))
    }

    private static func invalid(_ problem: String, _ correlationId: UUID?) -> NSError {
        MSALErrors.make(
            .internalErrorInvalidResponse,
            "The device authorization response \(problem). The identity provider may not support the device code flow.",
            ErrorDetails(correlationId: correlationId))
    }
}
