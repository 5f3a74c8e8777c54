import MSALNative

/// Why a step of the cache document reader stopped.
enum JSONScanError: Error {
    /// The window ended inside a value and more input follows: read more and retry the step.
    case needMore
    /// The bytes are not JSON; `reason` names what was expected (never echoes the input).
    case malformed(String, offset: Int)
}

/// A forward-only reader over a window of a JSON document, specialised for the token cache: it
/// finds string ends eight bytes at a time, hands out byte ranges instead of building trees, and
/// reports ``JSONScanError/needMore`` when the window ends before the document does.
///
/// It is lenient where leniency costs nothing (control characters inside strings are accepted),
/// and strict about structure, so a truncated or garbled document is always detected.
///
/// It holds the window as an array (shared, not copied) and reads it through spans, so every
/// access is bounds-checked; word loads and the byte search are MSALNative's span primitives.
struct JSONByteCursor {
    /// The window is `bytes[..<count]`.
    let bytes: [UInt8]
    let count: Int
    /// Whether the window's end is the document's end.
    let isFinal: Bool
    var index: Int
    /// Offset of the window in the whole document, for messages.
    let origin: Int

    /// A cursor over `bytes[..<count]` (all of `bytes` when `count` is `nil`).
    init(_ bytes: [UInt8], count: Int? = nil, isFinal: Bool, origin: Int = 0, index: Int = 0) {
        precondition(count.map { $0 >= 0 && $0 <= bytes.count } ?? true, "the window is larger than its bytes")
        self.bytes = bytes
        self.count = count ?? bytes.count
        self.isFinal = isFinal
        self.index = index
        self.origin = origin
    }

    /// The window's bytes `range`, as the cursor's callers pass them on.
    @inline(__always)
    func slice(_ range: Range<Int>) -> ArraySlice<UInt8> {
        precondition(range.upperBound <= count, "a range past the window")
        return bytes[range]
    }

    /// The window's bytes `range` as UTF-8 text (ill-formed sequences replaced).
    @inline(__always)
    func text(_ range: Range<Int>) -> String {
        precondition(range.upperBound <= count, "a range past the window")
        return bytes.span.extracting(range).decodedString()
    }

    func fail(_ reason: String) -> JSONScanError {
        .malformed(reason, offset: origin + index)
    }

    /// Fails with ``JSONScanError/needMore`` or, at the document's end, as truncated.
    func endReached() -> JSONScanError {
        isFinal ? .malformed("the document ends too early (truncated)", offset: origin + index) : .needMore
    }

    mutating func skipWhitespace() {
        guard index < count, bytes[index] <= 0x20 else { return }
        skipSomeWhitespace()
    }

    /// Skips whitespace from a byte that is some: a line break and indentation (MSAL Python
    /// indents by four per level) with spaces eight at a time.
    private mutating func skipSomeWhitespace() {
        index = Self.whitespaceEnd(bytes.span.extracting(..<count), from: index)
    }

    /// The offset of the first byte of `span` from `start` on that is not whitespace.
    private static func whitespaceEnd(_ span: Span<UInt8>, from start: Int) -> Int {
        let count = span.count
        var index = start
        while index + 8 <= count {
            let notSpace = span.littleEndianWord(at: index) ^ spaces
            if notSpace == 0 {
                index += 8
                continue
            }
            index += notSpace.trailingZeroBitCount >> 3
            switch span[index] {
            case 0x0A, 0x0D, 0x09: index += 1
            default: return index
            }
        }
        while index < count {
            switch span[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return index
            }
        }
        return index
    }

    private static let spaces: UInt64 = 0x2020_2020_2020_2020

    /// The next non-whitespace byte, without consuming it.
    @inline(__always)
    mutating func peek() throws(JSONScanError) -> UInt8 {
        guard index < count else { throw endReached() }
        let byte = bytes[index]
        if byte <= 0x20 {
            // The single space after a colon at once; anything longer in a loop.
            if byte == 0x20, index + 1 < count, bytes[index + 1] > 0x20 {
                index += 1
                return bytes[index]
            }
            skipSomeWhitespace()
            guard index < count else { throw endReached() }
            return bytes[index]
        }
        return byte
    }

    /// Consumes a UTF-8 byte order mark (EF BB BF) at the cursor, if there is one: some editors
    /// write one before the JSON, which is then no less a cache document.
    mutating func skipByteOrderMark() throws(JSONScanError) {
        guard index < count, bytes[index] == 0xEF else { return }
        guard index + 3 <= count else { throw endReached() }
        if bytes[index + 1] == 0xBB && bytes[index + 2] == 0xBF { index += 3 }
    }

    /// Consumes `byte` after optional whitespace.
    mutating func expect(_ byte: UInt8, _ what: String) throws(JSONScanError) {
        guard try peek() == byte else { throw fail("expected \(what)") }
        index += 1
    }

    /// After a member or element: consumes `,` (returns `true`) or `close` (returns `false`).
    mutating func separator(close: UInt8) throws(JSONScanError) -> Bool {
        let byte = try peek()
        index += 1
        if byte == UInt8(ascii: ",") { return true }
        if byte == close { return false }
        index -= 1
        throw fail("expected ',' or '\(Character(Unicode.Scalar(close)))'")
    }

    /// Scans a string starting at its opening quote. Returns the content's range (between the
    /// quotes) and whether it contains escapes; leaves the cursor after the closing quote.
    mutating func scanString() throws(JSONScanError) -> (start: Int, end: Int, escaped: Bool) {
        guard try peek() == UInt8(ascii: "\"") else { throw fail("expected a string") }
        let start = index + 1
        guard let (end, escaped) = Self.stringEnd(bytes.span.extracting(..<count), from: start) else {
            throw endReached()
        }
        index = end + 1
        return (start, end, escaped)
    }

    /// The offset of the quote that ends the string whose content starts at `start`, and whether
    /// the content has escapes; `nil` when the window (`span`) ends first.
    private static func stringEnd(_ span: Span<UInt8>, from start: Int) -> (Int, Bool)? {
        let count = span.count
        var position = start
        var escaped = false
        let quotes: UInt64 = 0x2222_2222_2222_2222
        let backslashes: UInt64 = 0x5C5C_5C5C_5C5C_5C5C
        let low: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        // Short strings (names, ids) end within sixteen bytes: found eight at a time here.
        var steps = 0
        while steps < 2, position + 8 <= count {
            let word = span.littleEndianWord(at: position)
            let q = word ^ quotes
            let b = word ^ backslashes
            let found = ((q &- low) & ~q | (b &- low) & ~b) & high
            if found != 0 {
                position += found.trailingZeroBitCount >> 3
                if span[position] == UInt8(ascii: "\"") { return (position, false) }
                break
            }
            position += 8
            steps += 1
        }
        // Longer ones (secrets are most of a cache file): the C library's vectorised search for
        // the next quote, then for a backslash before it. A quote found stays the candidate until
        // an escape reaches past it, so every byte is searched at most once for each.
        var quote = -1
        while true {
            if quote < position {
                guard position < count, let found = span.firstOffset(of: 0x22, in: position..<count) else {
                    return nil
                }
                quote = found
            }
            guard quote > position, let slash = span.firstOffset(of: 0x5C, in: position..<quote) else {
                return (quote, escaped)
            }
            escaped = true
            position = slash + 2
            guard position <= count else { return nil }
        }
    }

    /// Reads a string value.
    mutating func string() throws(JSONScanError) -> String {
        let scanned = try scanString()
        return try makeString(scanned.start, scanned.end, escaped: scanned.escaped)
    }

    /// The string whose content spans `start..<end`, decoding escapes when `escaped`.
    func makeString(_ start: Int, _ end: Int, escaped: Bool) throws(JSONScanError) -> String {
        guard escaped else { return text(start..<end) }
        guard let decoded = JSONStringEscapes.unescape(bytes.span.extracting(start..<end)) else {
            throw .malformed("invalid escape in a string", offset: origin + start)
        }
        return decoded
    }

    /// Whether the bytes `start..<end` equal `literal`.
    func bytesEqual(_ start: Int, _ end: Int, _ literal: StaticString) -> Bool {
        guard end - start == literal.utf8CodeUnitCount, end <= count else { return false }
        return bytes.span.bytesEqual(at: start, literal)
    }

    /// Skips one value of any kind and returns its raw range.
    mutating func skipValue(depth: Int = 0) throws(JSONScanError) -> Range<Int> {
        guard depth < 512 else { throw fail("nesting deeper than 512") }
        let byte = try peek()
        let start = index
        switch byte {
        case UInt8(ascii: "\""):
            _ = try scanString()
        case UInt8(ascii: "{"):
            index += 1
            if try peek() == UInt8(ascii: "}") {
                index += 1
            } else {
                repeat {
                    _ = try scanString()
                    try expect(UInt8(ascii: ":"), "':'")
                    _ = try skipValue(depth: depth + 1)
                } while try separator(close: UInt8(ascii: "}"))
            }
        case UInt8(ascii: "["):
            index += 1
            if try peek() == UInt8(ascii: "]") {
                index += 1
            } else {
                repeat {
                    _ = try skipValue(depth: depth + 1)
                } while try separator(close: UInt8(ascii: "]"))
            }
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            _ = try number()
        default:
            throw fail("expected a value")
        }
        return start..<index
    }

    private mutating func literal(_ word: StaticString) throws(JSONScanError) {
        let length = word.utf8CodeUnitCount
        guard index + length <= count else {
            // A prefix of the word at the end of a window may continue in the next one.
            throw isFinal ? fail("expected \(word)") : .needMore
        }
        guard bytes.span.bytesEqual(at: index, word) else { throw fail("expected \(word)") }
        index += length
        try requireDelimiter()
    }

    /// Scans a number literal and returns its range (RFC 8259 §6 grammar).
    mutating func number() throws(JSONScanError) -> Range<Int> {
        let start = index
        func digit(_ i: Int) -> Bool { i < count && bytes[i] >= 0x30 && bytes[i] <= 0x39 }
        if index < count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard digit(index) else { throw index >= count ? endReached() : fail("expected a digit") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while digit(index) { index += 1 }
        }
        if index < count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digit(index) else { throw index >= count ? endReached() : fail("expected a digit") }
            while digit(index) { index += 1 }
        }
        if index < count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digit(index) else { throw index >= count ? endReached() : fail("expected a digit") }
            while digit(index) { index += 1 }
        }
        try requireDelimiter()
        return start..<index
    }

    /// A number or literal must not run into the window's end (it might continue).
    private func requireDelimiter() throws(JSONScanError) {
        if index >= count && !isFinal { throw .needMore }
    }
}
