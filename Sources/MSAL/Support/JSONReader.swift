import MSALNative

/// The library's one JSON parser (RFC 8259), over a document held in memory as bytes.
///
/// It reads a document value by value, leaving the caller to decide what to decode: a string is
/// first a ``Token`` (where its text lies), a value the caller does not model is skipped and
/// handed back as the range of its raw bytes, to be kept exactly as it was written.
/// ``JSONValue`` builds its trees with it; the token cache reads its file with it.
///
/// Structure is checked strictly wherever the reader goes (no comments, no trailing commas, no
/// control characters or invalid escapes in strings, nesting at most ``JSONValue/maximumDepth``);
/// a string's UTF-8 and surrogate pairs are checked when it is decoded. Errors say where, never
/// what (the input may hold tokens); the end of the input is reported at its length, so a
/// document cut short is told from one damaged inside.
struct JSONReader {
    /// A string as it lies in the document: the bytes between its quotes.
    struct Token {
        var range: Range<Int>
        /// Whether those bytes hold escapes.
        var escaped: Bool
    }

    let bytes: [UInt8]
    private(set) var index: Int
    private var depth = 0

    /// A reader at the start of `bytes`, past a UTF-8 byte order mark.
    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    }

    func error(_ reason: String, at offset: Int? = nil) -> JSONValue.ParseError {
        JSONValue.ParseError(reason: reason, offset: offset ?? index)
    }

    /// Whether only white space is left.
    mutating func isAtEnd() -> Bool {
        skipWhitespace()
        return index == bytes.count
    }

    /// The next byte that is not white space, not consumed.
    mutating func peek() throws(JSONValue.ParseError) -> UInt8 {
        skipWhitespace()
        guard index < bytes.count else { throw error("the document ends too early (truncated)") }
        return bytes[index]
    }

    mutating func expect(_ byte: UInt8, _ what: String) throws(JSONValue.ParseError) {
        guard try peek() == byte else { throw error("expected \(what)") }
        index += 1
    }

    /// Opens the object at the cursor; `false` when it is empty (and then already closed).
    mutating func openObject() throws(JSONValue.ParseError) -> Bool {
        try open(UInt8(ascii: "{"), "'{'", close: UInt8(ascii: "}"))
    }

    /// Opens the array at the cursor; `false` when it is empty (and then already closed).
    mutating func openArray() throws(JSONValue.ParseError) -> Bool {
        try open(UInt8(ascii: "["), "'['", close: UInt8(ascii: "]"))
    }

    private mutating func open(_ byte: UInt8, _ what: String, close: UInt8) throws(JSONValue.ParseError) -> Bool {
        try expect(byte, what)
        guard depth < JSONValue.maximumDepth else {
            throw error("arrays and objects nested deeper than \(JSONValue.maximumDepth) levels")
        }
        if try peek() == close {
            index += 1
            return false
        }
        depth += 1
        return true
    }

    /// A member's name and the colon after it.
    mutating func name() throws(JSONValue.ParseError) -> Token {
        let name = try string()
        try expect(UInt8(ascii: ":"), "':' after a member's name")
        return name
    }

    /// After a member: `true` when another follows, `false` when the object closes.
    mutating func nextMember() throws(JSONValue.ParseError) -> Bool {
        try separator(close: UInt8(ascii: "}"))
    }

    /// After an element: `true` when another follows, `false` when the array closes.
    mutating func nextElement() throws(JSONValue.ParseError) -> Bool {
        try separator(close: UInt8(ascii: "]"))
    }

    private mutating func separator(close: UInt8) throws(JSONValue.ParseError) -> Bool {
        let byte = try peek()
        index += 1
        if byte == UInt8(ascii: ",") { return true }
        if byte == close {
            depth -= 1
            return false
        }
        index -= 1
        throw error("expected ',' or '\(Character(Unicode.Scalar(close)))'")
    }

    /// The string at the cursor: where its text lies. Escapes and control characters are checked.
    mutating func string() throws(JSONValue.ParseError) -> Token {
        guard try peek() == UInt8(ascii: "\"") else { throw error("expected a string") }
        let start = index + 1
        var position = start
        var escaped = false
        while true {
            position = Self.specialByte(bytes.span, from: position)
            guard position < bytes.count else { throw error("the document ends too early (truncated)", at: position) }
            switch bytes[position] {
            case UInt8(ascii: "\""):
                index = position + 1
                return Token(range: start..<position, escaped: escaped)
            case UInt8(ascii: "\\"):
                escaped = true
                position += try escapeLength(at: position)
            default:
                throw error("unescaped control character in a string", at: position)
            }
        }
    }

    /// The bytes an escape at `offset` (its backslash) takes.
    private func escapeLength(at offset: Int) throws(JSONValue.ParseError) -> Int {
        guard offset + 1 < bytes.count else { throw error("the document ends too early (truncated)", at: bytes.count) }
        switch bytes[offset + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return 2
        case UInt8(ascii: "u"):
            guard offset + 6 <= bytes.count else {
                throw error("the document ends too early (truncated)", at: bytes.count)
            }
            guard Self.hex4(bytes, offset + 2) != nil else { throw error("invalid \\u escape in a string", at: offset) }
            return 6
        default:
            throw error("invalid escape in a string", at: offset)
        }
    }

    /// The offset of the first byte from `start` that is a quote, a backslash or a control
    /// character (`span.count` when there is none): eight bytes at a time.
    static func specialByte(_ span: Span<UInt8>, from start: Int) -> Int {
        var position = start
        let count = span.count
        let low: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        while position + 8 <= count {
            let word = span.littleEndianWord(at: position)
            let quote = word ^ 0x2222_2222_2222_2222
            let backslash = word ^ 0x5C5C_5C5C_5C5C_5C5C
            // A byte below 0x20 borrows in `word - 0x20..` with its high bit clear.
            let control = (word &- 0x2020_2020_2020_2020) & ~word
            let found = ((quote &- low) & ~quote | (backslash &- low) & ~backslash | control) & high
            if found != 0 { return position + found.trailingZeroBitCount >> 3 }
            position += 8
        }
        while position < count {
            let byte = span[position]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { return position }
            position += 1
        }
        return count
    }

    /// The text of `token`: its escapes decoded, its UTF-8 and surrogate pairs checked; or,
    /// `repairing`, with unpaired surrogates (escapes that are valid JSON) replaced by U+FFFD.
    /// Bytes that are not UTF-8 are refused either way.
    func decode(_ token: Token, repairing: Bool = false) throws(JSONValue.ParseError) -> String {
        guard token.escaped else {
            guard let text = bytes.span.extracting(token.range).validatedString() else {
                throw error("string is not valid UTF-8", at: token.range.lowerBound)
            }
            return text
        }
        var utf8: [UInt8] = []
        utf8.reserveCapacity(token.range.count)
        var position = token.range.lowerBound
        while position < token.range.upperBound {
            let byte = bytes[position]
            guard byte == UInt8(ascii: "\\") else {
                utf8.append(byte)
                position += 1
                continue
            }
            let escape = bytes[position + 1]
            position += 2
            switch escape {
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = Self.hex4(bytes, position) ?? 0
                position += 4
                if (0xD800..<0xDC00).contains(scalar), position + 6 <= token.range.upperBound,
                    bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u"),
                    let low = Self.hex4(bytes, position + 2), (0xDC00..<0xE000).contains(low)
                {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    position += 6
                }
                guard let unicode = Unicode.Scalar(scalar) ?? (repairing ? "\u{FFFD}" : nil) else {
                    throw error("unpaired UTF-16 surrogate in a string", at: position - 6)
                }
                utf8.append(contentsOf: String(unicode).utf8)
            default: utf8.append(escape)
            }
        }
        guard let text = utf8.span.validatedString() else {
            throw error("string is not valid UTF-8", at: token.range.lowerBound)
        }
        return text
    }

    private static func hex4(_ bytes: [UInt8], _ offset: Int) -> UInt32? {
        guard offset + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for byte in bytes[offset..<(offset + 4)] {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value << 4 | UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = value << 4 | UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = value << 4 | UInt32(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
        }
        return value
    }

    /// Whether `token` is the text whose UTF-8 is `utf8`, as written (a name with escapes never is).
    func equals(_ token: Token, _ utf8: [UInt8]) -> Bool {
        !token.escaped && token.range.count == utf8.count
            && bytes.span.bytesEqual(at: token.range.lowerBound, utf8.span)
    }

    /// Whether `token` is `text`, as written.
    func equals(_ token: Token, _ text: String) -> Bool {
        equals(token, Array(text.utf8))
    }

    /// The bytes of `range` as text, as they are; throws when they are not UTF-8 text.
    func text(_ range: Range<Int>) throws(JSONValue.ParseError) -> String {
        if let offset = Self.firstInvalidUTF8(bytes[range]) { throw error("not UTF-8 text", at: offset) }
        return bytes.span.extracting(range).decodedString()
    }

    /// The offset of the first byte that is not part of well-formed UTF-8, or `nil`.
    static func firstInvalidUTF8(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard var offset = bytes.firstIndex(where: { $0 >= 0x80 }) else { return nil }
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes[offset...].makeIterator()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    /// Skips the value at the cursor and returns the range of its bytes.
    @discardableResult
    mutating func skipValue() throws(JSONValue.ParseError) -> Range<Int> {
        let byte = try peek()
        let start = index
        switch byte {
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "{"):
            if try openObject() {
                repeat {
                    _ = try name()
                    try skipValue()
                } while try nextMember()
            }
        case UInt8(ascii: "["):
            if try openArray() {
                repeat { try skipValue() } while try nextElement()
            }
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: _ = try number()
        }
        return start..<index
    }

    mutating func literal(_ word: StaticString) throws(JSONValue.ParseError) {
        _ = try peek()
        guard bytes.span.bytesEqual(at: index, word) else {
            let rest = bytes.span.extracting(index..<bytes.count)
            let cutShort = rest.count < word.utf8CodeUnitCount && word.withBytes { $0.bytesEqual(at: 0, rest) }
            throw cutShort
                ? error("the document ends too early (truncated)", at: bytes.count) : error("expected a value")
        }
        index += word.utf8CodeUnitCount
    }

    /// The range of the number at the cursor: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    mutating func number() throws(JSONValue.ParseError) -> Range<Int> {
        _ = try peek()
        let start = index
        func digits() throws(JSONValue.ParseError) {
            let first = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            guard index > first else {
                throw index == bytes.count
                    ? error("the document ends too early (truncated)") : error("expected a value")
            }
        }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        if index < bytes.count, bytes[index] == UInt8(ascii: "0") { index += 1 } else { try digits() }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            try digits()
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            try digits()
        }
        return start..<index
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }
}
