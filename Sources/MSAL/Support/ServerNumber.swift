import Foundation

/// The one way the library reads a number a server sent (token, device code, discovery and
/// throttling answers): a JSON number or a numeric string, finite, inside a documented range,
/// and then a whole number of seconds as an `Int64`, so no later conversion can trap.
///
/// A server that sends `1e30`, `-1e30`, `9.3e18`, `"1e30"`, `"abc"` or `true` where a number
/// belongs gets a clear error from the caller (-50000 with internal -42600, naming the field),
/// never a crash and never a silent default.
enum ServerNumber {
    /// The values a field may take, in whole seconds.
    struct Range: Sendable, Equatable, CustomStringConvertible {
        /// What the range is for, in messages ("a lifetime").
        let name: String
        let bounds: ClosedRange<Int64>

        var description: String { "\(name) (\(bounds.lowerBound) to \(bounds.upperBound) s)" }

        /// A lifetime relative to now (`expires_in`, `ext_expires_in`, `refresh_in`, a device
        /// code's `expires_in`): 0 to 10 years (315,576,000 s, ten Julian years).
        static let lifetime = Range(name: "a lifetime", bounds: 0...315_576_000)
        /// A polling interval (a device code's `interval`): 0 to 1 hour.
        static let interval = Range(name: "an interval", bounds: 0...3_600)
        /// A wait the server asks for (`Retry-After` as seconds): 0 to 1 day.
        static let retryAfter = Range(name: "a wait", bounds: 0...86_400)
        /// A moment as Unix time (`expires_on`, `ext_expires_on`, `refresh_on`, and the id
        /// token's `exp`, `iat`, `nbf`): from 1970-01-01 to 2100-01-01 (4,102,444,800).
        static let epoch = Range(name: "a Unix time", bounds: 0...4_102_444_800)
    }

    /// Why a value is not a number in range.
    enum Problem: Error, Equatable, CustomStringConvertible {
        /// Not a JSON number nor a string holding one (an object, `true`, `"abc"`, `null`).
        case notANumber
        /// Infinite or NaN (a literal beyond `Double`'s range, such as `1e400`).
        case notFinite
        /// A number outside the range.
        case outOfRange(Double, Range)

        var description: String {
            switch self {
            case .notANumber: "is not a number"
            case .notFinite: "is not a finite number"
            case .outOfRange(let value, let range): "is \(Self.shown(value)), outside \(range)"
            }
        }

        /// A number for a message: whole numbers without a fraction, others as `Double` prints them.
        private static func shown(_ value: Double) -> String {
            if let whole = Int64(exactly: value) { return String(whole) }
            return "\(value)"
        }
    }

    /// Reads `value` as whole seconds in `range` (a fraction is dropped toward zero).
    ///
    /// - Returns: `nil` when `value` is `nil` (the field is absent), else the seconds or the problem.
    static func seconds(_ value: JSONValue?, in range: Range) -> Result<Int64, Problem>? {
        guard let value else { return nil }
        let number: Double
        switch value {
        case .number(let json): number = json.doubleValue
        case .string(let text):
            guard let parsed = parse(text) else { return .failure(.notANumber) }
            number = parsed
        default: return .failure(.notANumber)
        }
        return check(number, in: range)
    }

    /// Reads a decimal number written as text (a header value, a string field): optional
    /// surrounding spaces and tabs, an optional sign, digits with an optional fraction and
    /// exponent (what JSON and `Double(_:)` both accept; no hexadecimal, `inf` or `nan`).
    ///
    /// - Returns: the seconds in `range` or the problem.
    static func seconds(text: String, in range: Range) -> Result<Int64, Problem> {
        guard let number = parse(text) else { return .failure(.notANumber) }
        return check(number, in: range)
    }

    /// `number` checked: finite, inside `range`, then converted (it fits `Int64` by construction).
    static func check(_ number: Double, in range: Range) -> Result<Int64, Problem> {
        guard number.isFinite else { return .failure(.notFinite) }
        let whole = number.rounded(.towardZero)
        guard whole >= Double(range.bounds.lowerBound), whole <= Double(range.bounds.upperBound),
            let seconds = Int64(exactly: whole)
        else { return .failure(.outOfRange(number, range)) }
        return .success(seconds)
    }

    /// The number in `text`, or `nil` when it is not a plain decimal number.
    private static func parse(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        guard !trimmed.isEmpty, trimmed.utf8.count <= 64,
            trimmed.utf8.allSatisfy({ byte in
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".")
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") || byte | 0x20 == UInt8(ascii: "e")
            }),
            trimmed.utf8.contains(where: { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return Double(trimmed)
    }

    /// ``seconds(_:in:)`` for `field` of a server document, as the error a caller throws.
    ///
    /// - Parameters:
    ///   - document: what the answer was, for the message ("The token response").
    /// - Returns: `nil` when the field is absent.
    /// - Throws: -50000 with internal -42600 naming the document, the field and the problem.
    static func read(
        _ field: String, of object: [String: JSONValue], in range: Range, document: String, correlationId: UUID?
    ) throws -> Int64? {
        switch seconds(object[field], in: range) {
        case nil: return nil
        case .success(let seconds)?: return seconds
        case .failure(let problem)?:
            throw MSALErrors.make(
                .internalErrorInvalidResponse,
                "\(document) has a \(field) that \(problem). The identity provider sent an unexpected answer.",
                ErrorDetails(correlationId: correlationId))
        }
    }
}
