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
    /// When the codes expire (`expires_in` after the response).
    let expiresOn: Date
    /// Seconds between polls (`interval`, default 5).
    let interval: TimeInterval

    /// Parses a 200 response body.
    ///
    /// - Throws: -50000 with internal -42600 when a required field is missing or malformed.
    init(body: Data, now: Date, correlationId: UUID? = nil) throws {
        guard let object = (try? JSONValue(parsing: body))?.objectValue else {
            throw Self.invalid("is not a JSON object", correlationId)
        }
        func string(_ key: String) -> String? {
            guard let text = object[key]?.stringValue, !text.isEmpty else { return nil }
            return text
        }
        func seconds(_ key: String) -> Double? {
            switch object[key] {
            case .number(let number): number.doubleValue
            case .string(let text): Double(text)
            default: nil
            }
        }
        guard let deviceCode = string("device_code"), let userCode = string("user_code") else {
            throw Self.invalid("lacks device_code or user_code", correlationId)
        }
        guard let uriText = string("verification_uri") ?? string("verification_url"), let uri = URL(string: uriText),
            uri.scheme?.lowercased() == "https" || uri.scheme?.lowercased() == "http"
        else {
            throw Self.invalid("lacks a verification_uri", correlationId)
        }
        guard let expiresIn = seconds("expires_in"), expiresIn > 0, expiresIn.isFinite else {
            throw Self.invalid("lacks a positive expires_in", correlationId)
        }
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = uri
        self.verificationURIComplete = string("verification_uri_complete").flatMap(URL.init(string:))
        self.message = string("message")
        self.expiresOn = now.addingTimeInterval(expiresIn)
        let interval = seconds("interval") ?? 5
        self.interval = interval.isFinite && interval >= 0 ? min(interval, 60) : 5
    }

    private static func invalid(_ problem: String, _ correlationId: UUID?) -> NSError {
        MSALErrors.make(
            .internalErrorInvalidResponse,
            "The device authorization response \(problem). The identity provider may not support the device code flow.",
            ErrorDetails(correlationId: correlationId))
    }
}
