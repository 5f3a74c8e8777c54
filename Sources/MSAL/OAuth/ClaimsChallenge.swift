import Foundation
import MSALNative

/// The `claims` parameter of a challenge (Continuous Access Evaluation, Conditional Access): a
/// JSON object, sent base64-encoded by Microsoft Entra resources (standard or URL-safe alphabet,
/// with or without padding), or as the JSON text itself.
///
/// The decoded text must be a JSON object (OpenID Connect Core §5.5) of at most
/// ``maximumDecodedLength`` bytes nested at most ``maximumDepth`` levels; it is returned as
/// decoded, so the server receives back exactly the claims it asked for.
enum ClaimsChallenge {
    /// The longest claims value read, encoded: 16 KiB. Claims challenges are a few hundred bytes.
    static let maximumEncodedLength = 16_384
    /// The longest decoded claims JSON.
    static let maximumDecodedLength = 12_288
    /// The deepest nesting of arrays and objects accepted in the decoded JSON.
    static let maximumDepth = 16

    /// Why a `claims` value was refused.
    enum Problem: Error, Equatable, CustomStringConvertible {
        /// Over ``maximumEncodedLength`` bytes.
        case tooLong
        /// Neither JSON text nor base64.
        case notBase64
        /// Decoded, but not UTF-8 JSON.
        case notJSON
        /// JSON, but not an object.
        case notAnObject
        /// Nested deeper than ``maximumDepth``.
        case tooDeep

        var description: String {
            switch self {
            case .tooLong: "is longer than \(ClaimsChallenge.maximumEncodedLength) bytes"
            case .notBase64: "is neither base64 nor JSON"
            case .notJSON: "does not decode to JSON"
            case .notAnObject: "is not a JSON object"
            case .tooDeep: "is nested deeper than \(ClaimsChallenge.maximumDepth) levels"
            }
        }
    }

    /// The claims JSON in `value`.
    static func decode(_ value: String) throws(Problem) -> String {
        let trimmed = value.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        guard trimmed.utf8.count <= maximumEncodedLength else { throw .tooLong }
        let text: String
        if trimmed.utf8.first == UInt8(ascii: "{") {
            text = trimmed
        } else {
            // The standard alphabet becomes the URL-safe one; both are accepted, not mixed up:
            // a value holding both `+` and `-` is no encoder's output.
            let bytes = Array(trimmed.utf8)
            let standard = bytes.contains(UInt8(ascii: "+")) || bytes.contains(UInt8(ascii: "/"))
            let urlSafe = bytes.contains(UInt8(ascii: "-")) || bytes.contains(UInt8(ascii: "_"))
            guard !(standard && urlSafe) else { throw .notBase64 }
            let mapped = bytes.map { byte -> UInt8 in
                switch byte {
                case UInt8(ascii: "+"): UInt8(ascii: "-")
                case UInt8(ascii: "/"): UInt8(ascii: "_")
                default: byte
                }
            }
            guard !mapped.isEmpty, let decoded = Base64URL.decode(mapped) else { throw .notBase64 }
            guard let string = String(validating: decoded, as: UTF8.self) else { throw .notJSON }
            text = string
        }
        guard text.utf8.count <= maximumDecodedLength else { throw .tooLong }
        guard let json = try? JSONValue(parsing: text) else { throw .notJSON }
        guard json.objectValue != nil else { throw .notAnObject }
        guard depth(of: json) <= maximumDepth else { throw .tooDeep }
        return text
    }

    /// How deeply arrays and objects nest in `value` (0 for a scalar).
    private static func depth(of value: JSONValue) -> Int {
        switch value {
        case .array(let elements): 1 + (elements.map(depth(of:)).max() ?? 0)
        case .object(let members): 1 + (members.values.map(depth(of:)).max() ?? 0)
        default: 0
        }
    }
}
