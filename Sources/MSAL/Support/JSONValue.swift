import Foundation
import MSALNative

/// A JSON value (RFC 8259) that keeps what it read: numbers keep their literal text, so integers
/// of any size, `-0` and `1.50` are written back exactly as they came, and `true` is never
/// confused with `1` (as `NSNumber` from `JSONSerialization` is on Linux).
///
/// Used for JWT claims, token and discovery responses, and the token cache, which must rewrite
/// fields it does not understand unchanged. Parsing is strict (no comments, no trailing commas,
/// valid UTF-8, no lone surrogates) and bounded (nesting at most ``maximumDepth``); within an
/// object a repeated key keeps its last value, as most parsers do. Equality is structural, and
/// numbers compare by literal: `1` and `1.0` differ.
enum JSONValue: Sendable, Hashable {
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
    struct Number: Sendable, Hashable, CustomStringConvertible {
        /// The number exactly as written, e.g. `-0`, `3599`, `1.5e3`, `123456789012345678901234567890`.
        let literal: String

        /// A number from its JSON literal, or `nil` when `literal` is not a JSON number.
        init?(literal: String) {
            var parser = Parser(Array(literal.utf8))
            guard parser.scanNumber() != nil, parser.index == parser.bytes.count else { return nil }
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

        var description: String { literal }
    }

    /// Why parsing failed, without echoing the input (which may hold tokens).
    struct ParseError: Error, CustomStringConvertible {
        /// What is wrong.
        let reason: String
        /// The byte offset in the input where the problem was found.
        let offset: Int

        var description: String { "invalid JSON at byte \(offset): \(reason)" }
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
    init(parsing bytes: some Collection<UInt8>) throws(ParseError) {
        self = try Self.parse(Array(bytes)).get()
    }

    /// Parses a complete JSON text.
    init(parsing string: String) throws(ParseError) {
        self = try Self.parse(Array(string.utf8)).get()
    }

    private static func parse(_ bytes: [UInt8]) -> Result<JSONValue, ParseError> {
        var parser = Parser(bytes)
        return Result { () throws(ParseError) in try parser.parseDocument() }
    }
}

/// A recursive-descent parser over UTF-8 bytes.
private struct Parser {
    let bytes: [UInt8]
    var index = 0
    var depth = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func parseDocument() throws(JSONValue.ParseError) -> JSONValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw error("unexpected data after the JSON value") }
        return value
    }

    private mutating func parseValue() throws(JSONValue.ParseError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = index
            guard let end = scanNumber() else {
                index = start
                throw error("malformed number")
            }
            let literal = String(decoding: bytes[start..<end], as: UTF8.self)
            return .number(JSONValue.Number(validLiteral: literal))
        default:
            throw error("expected a value")
        }
    }

    private mutating func parseLiteral(_ word: StaticString, _ value: JSONValue) throws(JSONValue.ParseError)
        -> JSONValue
    {
        guard bytes.span.bytesEqual(at: index, word) else { throw error("expected a value") }
        index += word.utf8CodeUnitCount
        return value
    }

    private mutating func parseObject() throws(JSONValue.ParseError) -> JSONValue {
        try enterContainer()
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if consume(UInt8(ascii: "}")) {
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error("expected a string key in an object")
            }
            let key = try parseString()
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { throw error("expected ':' after an object key") }
            skipWhitespace()
            members[key] = try parseValue()
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            guard consume(UInt8(ascii: "}")) else { throw error("expected ',' or '}' in an object") }
            depth -= 1
            return .object(members)
        }
    }

    private mutating func parseArray() throws(JSONValue.ParseError) -> JSONValue {
        try enterContainer()
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if consume(UInt8(ascii: "]")) {
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            guard consume(UInt8(ascii: "]")) else { throw error("expected ',' or ']' in an array") }
            depth -= 1
            return .array(elements)
        }
    }

    private mutating func enterContainer() throws(JSONValue.ParseError) {
        depth += 1
        guard depth <= JSONValue.maximumDepth else {
            throw error("arrays and objects nested deeper than \(JSONValue.maximumDepth) levels")
        }
    }

    /// Parses a string starting at its opening quote.
    private mutating func parseString() throws(JSONValue.ParseError) -> String {
        let start = index
        index += 1
        // Fast path: most strings (tokens, ids, URLs) have no escape; they become a String in one
        // copy, straight from the input.
        var scan = index
        while scan < bytes.count {
            let byte = bytes[scan]
            if byte == UInt8(ascii: "\"") {
                guard
                    let string = String(validating: bytes[index..<scan], as: UTF8.self)
                else { throw error("string is not valid UTF-8", at: start) }
                index = scan + 1
                return string
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            scan += 1
        }
        var utf8: [UInt8] = Array(bytes[index..<scan])
        index = scan
        while true {
            guard index < bytes.count else { throw error("unterminated string", at: start) }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let string = String(validating: utf8, as: UTF8.self) else {
                    throw error("string is not valid UTF-8", at: start)
                }
                return string
            case UInt8(ascii: "\\"):
                try parseEscape(into: &utf8)
            case 0..<0x20:
                throw error("unescaped control character in a string")
            default:
                utf8.append(byte)
                index += 1
            }
        }
    }

    /// Parses one escape sequence starting at its backslash, appending its UTF-8.
    private mutating func parseEscape(into utf8: inout [UInt8]) throws(JSONValue.ParseError) {
        guard index + 1 < bytes.count else { throw error("unterminated escape in a string") }
        let escaped = bytes[index + 1]
        index += 2
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escaped)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xD800..<0xDC00).contains(scalar) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { throw error("unpaired UTF-16 surrogate in a string") }
                index += 2
                let low = try parseHex4()
                guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired UTF-16 surrogate in a string") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw error("unpaired UTF-16 surrogate in a string")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape in a string") }
            utf8.append(contentsOf: String(unicode).utf8)
        default:
            index -= 1
            throw error("invalid escape in a string")
        }
    }

    private mutating func parseHex4() throws(JSONValue.ParseError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw error("incomplete \\u escape in a string") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid \\u escape in a string")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// Scans `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` and returns its end, or
    /// `nil` when the bytes at `index` are not a number.
    mutating func scanNumber() -> Int? {
        if peek(UInt8(ascii: "-")) { index += 1 }
        if peek(UInt8(ascii: "0")) {
            index += 1
        } else {
            guard scanDigits() else { return nil }
        }
        if peek(UInt8(ascii: ".")) {
            index += 1
            guard scanDigits() else { return nil }
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            index += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { index += 1 }
            guard scanDigits() else { return nil }
        }
        return index
    }

    /// Scans one or more digits; false when there is none.
    private mutating func scanDigits() -> Bool {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        return index > start
    }

    private func peek(_ byte: UInt8) -> Bool {
        index < bytes.count && bytes[index] == byte
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard peek(byte) else { return false }
        index += 1
        return true
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func error(_ reason: String, at offset: Int? = nil) -> JSONValue.ParseError {
        JSONValue.ParseError(reason: reason, offset: offset ?? index)
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

    private static func writeString(_ string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
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
    subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    /// The element at `index` of an array; `nil` when out of range or not an array.
    subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// The string, if this is a string.
    var stringValue: String? {
        guard case .string(let value) = self else { return nil }
        return value
    }

    /// The Boolean, if this is `true` or `false` (never for numbers).
    var boolValue: Bool? {
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
    var objectValue: [String: JSONValue]? {
        guard case .object(let value) = self else { return nil }
        return value
    }

    /// The elements, if this is an array.
    var arrayValue: [JSONValue]? {
        guard case .array(let value) = self else { return nil }
        return value
    }

    /// Whether this is `null`.
    var isNull: Bool { self == .null }
}

// MARK: - Literals

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    init(nilLiteral: ()) {
        self = .null
    }

    init(booleanLiteral value: Bool) {
        self = .bool(value)
    }

    init(integerLiteral value: Int64) {
        self = .number(Number(value))
    }

    /// A finite float literal; an infinite one (like `1e999`) is a programming error.
    init(floatLiteral value: Double) {
        guard let number = Number(value) else { preconditionFailure("JSON cannot represent \(value)") }
        self = .number(number)
    }

    init(stringLiteral value: String) {
        self = .string(value)
    }

    init(arrayLiteral elements: JSONValue...) {
        self = .array(elements)
    }

    init(dictionaryLiteral members: (String, JSONValue)...) {
        self = .object(Dictionary(members, uniquingKeysWith: { _, last in last }))
    }
}
