import Foundation

/// A log message whose personal and secret parts are marked where they are interpolated, so one
/// place decides what the configured masking level lets through.
///
/// ```swift
/// Log.info("Token request for \(pii: username) with \(secret: refreshToken)", correlationId: id)
/// ```
struct LogMessage: ExpressibleByStringInterpolation, Sendable {
    enum Part: Sendable {
        case text(String)
        /// Organisation identifiers (tenant ids, object ids): shown unless all PII is masked.
        case pii(String)
        /// End-user identifiable information (user names, e-mail addresses).
        case euii(String)
        /// Tokens, codes, passwords: shown only with full PII logging switched on.
        case secret(String)
    }

    var parts: [Part] = []

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

        mutating func appendInterpolation(pii value: String?) {
            parts.append(.pii(value ?? "(nil)"))
        }

        mutating func appendInterpolation(euii value: String?) {
            parts.append(.euii(value ?? "(nil)"))
        }

        mutating func appendInterpolation(secret value: String?) {
            parts.append(.secret(value ?? "(nil)"))
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
enum Log {
    static func write(_ level: MSALLogLevel, _ message: @autoclosure () -> LogMessage, correlationId: UUID?) {
        guard let sink = MSALGlobalConfig.loggerConfig.sink(for: level) else { return }
        let rendered = message().render(masking: sink.masking, piiEnabled: sink.pii)
        let prefix = correlationId.map { "[\($0.uuidString)] " } ?? ""
        sink.callback(level, prefix + rendered.text, rendered.containsPII)
    }

    static func error(_ message: @autoclosure () -> LogMessage, correlationId: UUID? = nil) {
        write(.error, message(), correlationId: correlationId)
    }

    static func warning(_ message: @autoclosure () -> LogMessage, correlationId: UUID? = nil) {
        write(.warning, message(), correlationId: correlationId)
    }

    static func info(_ message: @autoclosure () -> LogMessage, correlationId: UUID? = nil) {
        write(.info, message(), correlationId: correlationId)
    }

    static func verbose(_ message: @autoclosure () -> LogMessage, correlationId: UUID? = nil) {
        write(.verbose, message(), correlationId: correlationId)
    }
}
