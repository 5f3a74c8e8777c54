import Foundation

/// A log message whose personal and secret parts are marked where they are interpolated, so one
/// place decides what the configured masking level lets through.
///
/// ```swift
/// Log.info("Token request for \(euii: username) with \(secret: refreshToken)", correlationId: id)
/// Log.verbose("POST \(redacting: url) body \(redacting: body)", correlationId: id)
/// ```
///
/// - `\(value)`: neither personal nor secret (status codes, durations, enum names, client ids).
/// - `\(pii:)`: organisation identifiers and pseudonymous ids (tenant ids, object ids, home account
///   ids); shown with ``MSALLogMaskingLevel/maskEUIIOnly`` and ``MSALLogMaskingLevel/maskSecretsOnly``.
/// - `\(euii:)`: end-user identifiable information (user names, e-mail addresses); shown with
///   ``MSALLogMaskingLevel/maskSecretsOnly``.
/// - `\(secret:)`: tokens, codes, passwords, assertions; shown only with
///   ``MSALLogMaskingLevel/maskSecretsOnly`` *and* ``MSALLoggerConfig/piiEnabled``.
/// - `\(redacting:)`: free text (URL, form or JSON body, server message) scanned by ``Redaction``,
///   whose sensitive values are then treated as above.
struct LogMessage: ExpressibleByStringInterpolation, Sendable {
    enum Part: Sendable, Equatable {
        case text(String)
        /// Organisation identifiers and pseudonymous ids: shown unless all PII is masked.
        case pii(String)
        /// End-user identifiable information (user names, e-mail addresses).
        case euii(String)
        /// Tokens, codes, passwords: shown only with full PII logging switched on.
        case secret(String)
    }

    var parts: [Part] = []

    init(parts: [Part]) {
        self.parts = parts
    }

    init(stringLiteral value: String) {
        parts = [.text(value)]
    }

    init(stringInterpolation: StringInterpolation) {
        parts = stringInterpolation.parts
    }

    struct StringInterpolation: StringInterpolationProtocol {
        var parts: [Part] = []

        init(literalCapacity: Int, interpolationCount: Int) {
            parts.reserveCapacity(interpolationCount * 2 + 1)
        }

        mutating func appendLiteral(_ literal: String) {
            parts.append(.text(literal))
        }

        /// A value that is neither personal nor secret (status codes, durations, enum names).
        mutating func appendInterpolation<T>(_ value: T) {
            parts.append(.text(String(describing: value)))
        }

        /// An organisation identifier or pseudonymous id (tenant id, object id, home account id).
        mutating func appendInterpolation(pii value: String?) {
            parts.append(value.map(Part.pii) ?? .text("(nil)"))
        }

        /// End-user identifiable information (user name, e-mail address, display name).
        mutating func appendInterpolation(euii value: String?) {
            parts.append(value.map(Part.euii) ?? .text("(nil)"))
        }

        /// A token, authorization code, password, assertion or key.
        mutating func appendInterpolation(secret value: String?) {
            parts.append(value.map(Part.secret) ?? .text("(nil)"))
        }

        /// Free text that may contain secrets or personal data (a URL, a form or JSON body, a
        /// server message); its sensitive values are recognised by ``Redaction/parts(of:)``.
        mutating func appendInterpolation(redacting value: String?) {
            guard let value else { return parts.append(.text("(nil)")) }
            parts.append(contentsOf: Redaction.parts(of: value))
        }

        /// A URL whose query and fragment are personal data (SAS signatures, codes): each value
        /// is masked unless personal data may be logged (``Redaction/urlParts(of:)``).
        mutating func appendInterpolation(redacting url: URL?) {
            guard let url else { return parts.append(.text("(nil)")) }
            parts.append(contentsOf: Redaction.urlParts(of: url.absoluteString))
        }
    }

    /// The text with every part the masking level hides replaced by a marker, and whether any
    /// personal or secret part was let through.
    func render(masking: MSALLogMaskingLevel, piiEnabled: Bool) -> (text: String, containsPII: Bool) {
        var text = ""
        var containsPII = false
        for part in parts {
            switch part {
            case .text(let value):
                text += value
            case .pii(let value):
                if masking != .maskAllPII {
                    text += value
                    containsPII = true
                } else {
                    text += Redaction.maskedPII(value)
                }
            case .euii(let value):
                if masking == .maskSecretsOnly {
                    text += value
                    containsPII = true
                } else {
                    text += Redaction.maskedPII(value)
                }
            case .secret(let value):
                if masking == .maskSecretsOnly && piiEnabled {
                    text += value
                    containsPII = true
                } else {
                    text += Redaction.maskedSecret(value)
                }
            }
        }
        return (text, containsPII)
    }
}

/// The library's single logging funnel. Nothing is built or delivered unless a callback is
/// installed and the level passes ``MSALLoggerConfig/logLevel``.
///
/// Every message that belongs to a request carries the request's correlation id as a
/// `[<UUID>] ` prefix: pass it as `correlationId:`, or run the request's work inside
/// `Log.$currentCorrelationId.withValue(id) { ... }` so messages of nested calls get it too.
enum Log {
    /// The correlation id of the request the current task works for; used when a message is
    /// logged without an explicit `correlationId`.
    @TaskLocal static var currentCorrelationId: UUID?

    static func write(_ level: MSALLogLevel, _ message: @autoclosure () -> LogMessage, correlationId: UUID?) {
        guard let sink = MSALGlobalConfig.loggerConfig.sink(for: level) else { return }
        let rendered = message().render(masking: sink.masking, piiEnabled: sink.pii)
        let prefix = (correlationId ?? currentCorrelationId).map { "[\(CorrelationID.string($0))] " } ?? ""
        // One line of data: whatever a server sent cannot move the cursor or forge another line.
        sink.callback(level, prefix + TerminalText.escaped(rendered.text), rendered.containsPII)
    }

    /// Whether a message of `level` would be delivered now, for work done only to log
    /// (timing a request, say).
    static func isEnabled(_ level: MSALLogLevel) -> Bool {
        MSALGlobalConfig.loggerConfig.sink(for: level) != nil
    }

    /// A failure the app will see or that loses data.
    static func error(_ message: @autoclosure () -> LogMessage, correlationId: UUID? = nil) {
        write(.error, message(), correlationId: correlationId)
    }

    /// A condition worth attention that the library recovered from.
    static func warning(_ message: @autoclosure () -> LogMessage, correlationId: UUID? = nil) {
        write(.warning, message(), correlationId: correlationId)
    }

    /// A milestone of a request (started, cache hit, token refreshed, finished).
    static func info(_ message: @autoclosure () -> LogMessage, correlationId: UUID? = nil) {
        write(.info, message(), correlationId: correlationId)
    }

    /// Details: each HTTP request and response, cache lookups, decisions.
    static func verbose(_ message: @autoclosure () -> LogMessage, correlationId: UUID? = nil) {
        write(.verbose, message(), correlationId: correlationId)
    }
}
