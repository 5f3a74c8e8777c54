import Foundation
import MSALNative

/// A JSON value (RFC 8259) that keeps what it read: numbers keep their literal text, so integers
/// of any size, `-0` and `1.50` are written back exactly as they came, and `true` is never
/// confused with `1` (as `NSNumber` from `JSONSerialization` is on Linux).
///
/// Used for JWT claims, token and discovery responses, and the parts of the token cache that are
/// small and rewritten whole (discovery results, tokens kept per resource). Parsed by
/// ``JSONReader``: strict (no comments, no trailing commas, valid UTF-8, no lone surrogates) and
/// bounded (nesting at most ``maximumDepth``); within an object a repeated key keeps its last
/// value, as most parsers do. Equality is structural, and
/// numbers compare by literal: `1` and `1.0` differ.
///
/// Visible to the package's tools too (`package`), so that `msal` reads its own small files with
/// the parser the cache has already loaded rather than with `JSONDecoder` (whose first use costs
/// `msal token` about 0.2 ms).
package enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, kept as its literal.
    case number(Number)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; member order is not kept (serialize with `.sortedKeys` for stable output).
    case object([String: JSONValue])

    /// The deepest nesting of arrays and objects that parsing accepts.
    static let maximumDepth = 512

    /// A JSON number as its literal text, valid per RFC 8259 §6.
    package struct Number: Sendable, Hashable, CustomStringConvertible {
        /// The number exactly as written, e.g. `-0`, `3599`, `1.5e3`, `123456789012345678901234567890`.
        let literal: String

        /// A number from its JSON literal, or `nil` when `literal` is not a JSON number.
        init?(literal: String) {
            var reader = JSONReader(Array(literal.utf8))
            guard (try? reader.number()) == 0..<reader.bytes.count else { return nil }
            self.literal = literal
        }

        /// An integer.
        init(_ value: Int64) {
            literal = String(value)
        }

        /// An integer.
        init(_ value: Int) {
            literal = String(value)
        }

        /// A floating-point number in its shortest round-tripping form; `nil` for NaN and infinity,
        /// which JSON cannot represent.
        init?(_ value: Double) {
            guard value.isFinite else { return nil }
            literal = "\(value)"
        }

        /// The value as an `Int64` when it is an integer in range (`1e3` and `2.0` are integers).
        var int64Value: Int64? {
            if !literal.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }) {
                return Int64(literal)
            }
            guard let double = Double(literal), double.rounded() == double else { return nil }
            return Int64(exactly: double)
        }

        /// The nearest `Double` (infinite when the literal is out of `Double`'s range).
        var doubleValue: Double {
            Double(literal) ?? .nan
        }

        package var description: String { literal }
    }

    /// Why parsing failed, without echoing the input (which may hold tokens).
    package struct ParseError: Error, CustomStringConvertible {
        /// What is wrong.
        let reason: String
        /// The byte offset in the input where the problem was found.
        let offset: Int

        package var description: String { "invalid JSON at byte \(offset): \(reason)" }
    }

    /// How ``serialized(options:)`` writes.
    struct SerializationOptions: OptionSet, Sendable {
        let rawValue: Int

        /// Object keys in ascending order of their UTF-8 bytes, for stable output.
        static let sortedKeys = SerializationOptions(rawValue: 1 << 0)
        /// One member or element per line, indented by four spaces (as MSAL Python writes its cache).
        static let prettyPrinted = SerializationOptions(rawValue: 1 << 1)
    }
}

// MARK: - Parsing

extension JSONValue {
    /// Parses a complete JSON text (UTF-8; a leading byte order mark is ignored).
    package init(parsing bytes: some Collection<UInt8>) throws(ParseError) {
        self = try Self.parse(Array(bytes)).get()
    }

    /// Parses a complete JSON text.
    init(parsing string: String) throws(ParseError) {
        self = try Self.parse(Array(string.utf8)).get()
    }

    private static func parse(_ bytes: [UInt8]) -> Result<JSONValue, ParseError> {
        var reader = JSONReader(bytes)
        return Result { () throws(ParseError) in
            let value = try reader.value()
            guard reader.isAtEnd() else { throw reader.error("unexpected data after the JSON value") }
            return value
        }
    }
}

extension JSONReader {
    /// The value at the cursor, as a tree.
    mutating func value() throws(JSONValue.ParseError) -> JSONValue {
        switch try peek() {
        case UInt8(ascii: "{"):
            var members: [String: JSONValue] = [:]
            if try openObject() {
                repeat {
                    let key = try decode(name())
                    members[key] = try value()
                } while try nextMember()
            }
            return .object(members)
        case UInt8(ascii: "["):
            var elements: [JSONValue] = []
            if try openArray() {
                repeat { elements.append(try value()) } while try nextElement()
            }
            return .array(elements)
        case UInt8(ascii: "\""): return .string(try decode(string()))
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        default:
            return .number(JSONValue.Number(validLiteral: try text(try number())))
        }
    }
}

extension JSONValue.Number {
    /// A literal the parser has already validated.
    fileprivate init(validLiteral: String) {
        literal = validLiteral
    }
}

// MARK: - Serialization

extension JSONValue {
    /// The JSON text of this value, UTF-8 encoded.
    func serialized(options: SerializationOptions = []) -> Data {
        var output: [UInt8] = []
        write(to: &output, options: options, indentation: 0)
        return Data(output)
    }

    /// The JSON text of this value.
    func serializedString(options: SerializationOptions = []) -> String {
        var output: [UInt8] = []
        write(to: &output, options: options, indentation: 0)
        return String(decoding: output, as: UTF8.self)
    }

    private func write(to output: inout [UInt8], options: SerializationOptions, indentation: Int) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let number): output.append(contentsOf: number.literal.utf8)
        case .string(let string): Self.writeString(string, to: &output)
        case .array(let elements):
            Self.writeContainer(
                elements, open: "[", close: "]", to: &output, options: options, indentation: indentation
            ) {
                element, output in
                element.write(to: &output, options: options, indentation: indentation + 1)
            }
        case .object(let members):
            let ordered =
                options.contains(.sortedKeys)
                ? members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) } : Array(members)
            let separator = options.contains(.prettyPrinted) ? ": " : ":"
            Self.writeContainer(ordered, open: "{", close: "}", to: &output, options: options, indentation: indentation)
            {
                member, output in
                Self.writeString(member.key, to: &output)
                output.append(contentsOf: separator.utf8)
                member.value.write(to: &output, options: options, indentation: indentation + 1)
            }
        }
    }

    private static func writeContainer<Element>(
        _ elements: [Element], open: Unicode.Scalar, close: Unicode.Scalar, to output: inout [UInt8],
        options: SerializationOptions, indentation: Int, writeElement: (Element, inout [UInt8]) -> Void
    ) {
        output.append(UInt8(ascii: open))
        let pretty = options.contains(.prettyPrinted) && !elements.isEmpty
        for (offset, element) in elements.enumerated() {
            if offset > 0 { output.append(UInt8(ascii: ",")) }
            if pretty { newline(indentation + 1, to: &output) }
            writeElement(element, &output)
        }
        if pretty { newline(indentation, to: &output) }
        output.append(UInt8(ascii: close))
    }

    private static func newline(_ indentation: Int, to output: inout [UInt8]) {
        output.append(0x0A)
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indentation * 4))
    }

    /// Appends `string` as a JSON string: as it is when nothing in it needs an escape (the usual
    /// case, one copy), else byte by byte.
    static func writeString(_ string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        if string.withUTF8Span({ JSONReader.specialByte($0, from: 0) == $0.count }) {
            output.append(contentsOf: string.utf8)
            output.append(UInt8(ascii: "\""))
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): output.append(contentsOf: "\\\\".utf8)
            case 0x0A: output.append(contentsOf: "\\n".utf8)
            case 0x0D: output.append(contentsOf: "\\r".utf8)
            case 0x09: output.append(contentsOf: "\\t".utf8)
            case 0x08: output.append(contentsOf: "\\b".utf8)
            case 0x0C: output.append(contentsOf: "\\f".utf8)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                output.append(contentsOf: "\\u00".utf8)
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0x0F)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}

// MARK: - Access

extension JSONValue {
    /// The member `key` of an object; `nil` for a missing key or a value that is not an object.
    package subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    /// The element at `index` of an array; `nil` when out of range or not an array.
    subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// The string, if this is a string.
    package var stringValue: String? {
        guard case .string(let value) = self else { return nil }
        return value
    }

    /// The Boolean, if this is `true` or `false` (never for numbers).
    package var boolValue: Bool? {
        guard case .bool(let value) = self else { return nil }
        return value
    }

    /// The number, if this is a number.
    var numberValue: Number? {
        guard case .number(let value) = self else { return nil }
        return value
    }

    /// The integer, if this is a number that is an integer within `Int64`.
    var int64Value: Int64? { numberValue?.int64Value }

    /// The integer, if this is a number that is an integer within `Int`.
    var intValue: Int? { int64Value.flatMap { Int(exactly: $0) } }

    /// The nearest `Double`, if this is a number.
    var doubleValue: Double? { numberValue?.doubleValue }

    /// The members, if this is an object.
    package var objectValue: [String: JSONValue]? {
        guard case .object(let value) = self else { return nil }
        return value
    }

    /// The elements, if this is an array.
    var arrayValue: [JSONValue]? {
        guard case .array(let value) = self else { return nil }
        return value
    }

    /// Whether this is `null`.
    package var isNull: Bool { self == .null }
}

// MARK: - Literals

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    package init(nilLiteral: ()) {
        self = .null
    }

    package init(booleanLiteral value: Bool) {
        self = .bool(value)
    }

    package init(integerLiteral value: Int64) {
        self = .number(Number(value))
    }

    /// A finite float literal; an infinite one (like `1e999`) is a programming error.
    package init(floatLiteral value: Double) {
        guard let number = Number(value) else { preconditionFailure("JSON cannot represent \(value)") }
        self = .number(number)
    }

    package init(stringLiteral value: String) {
        self = .string(value)
    }

    package init(arrayLiteral elements: JSONValue...) {
        self = .array(elements)
    }

    package init(dictionaryLiteral members: (String, JSONValue)...) {
        self = .object(Dictionary(members, uniquingKeysWith: { _, last in last }))
    }
}
