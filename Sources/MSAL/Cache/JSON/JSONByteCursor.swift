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
struct JSONByteCursor {
    let base: UnsafePointer<UInt8>
    let count: Int
    /// Whether the window's end is the document's end.
    let isFinal: Bool
    var index: Int
    /// Offset of the window in the whole document, for messages.
    let origin: Int

    init(_ buffer: UnsafeRawBufferPointer, isFinal: Bool, origin: Int = 0, index: Int = 0) {
        base = buffer.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) } ?? Self.empty
        count = buffer.count
        self.isFinal = isFinal
        self.index = index
        self.origin = origin
    }

    // nonisolated(unsafe): a constant one-byte allocation that is never written after init.
    nonisolated(unsafe) private static let empty: UnsafePointer<UInt8> = {
        let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        pointer.initialize(to: 0)
        return UnsafePointer(pointer)
    }()

    func fail(_ reason: String) -> JSONScanError {
        .malformed(reason, offset: origin + index)
    }

    /// Fails with ``JSONScanError/needMore`` or, at the document's end, as truncated.
    func endReached() -> JSONScanError {
        isFinal ? .malformed("the document ends too early (truncated)", offset: origin + index) : .needMore
    }

    mutating func skipWhitespace() {
        guard index < count, base[index] <= 0x20 else { return }
        skipSomeWhitespace()
    }

    /// Skips whitespace from a byte that is some: a line break and indentation (MSAL Python
    /// indents by four per level) with spaces eight at a time.
    private mutating func skipSomeWhitespace() {
        let raw = UnsafeRawPointer(base)
        while index + 8 <= count {
            let notSpace = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) ^ Self.spaces
            if notSpace == 0 {
                index += 8
                continue
            }
            index += notSpace.trailingZeroBitCount >> 3
            switch base[index] {
            case 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
        while index < count {
            switch base[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private static let spaces: UInt64 = 0x2020_2020_2020_2020

    /// The next non-whitespace byte, without consuming it.
    @inline(__always)
    mutating func peek() throws(JSONScanError) -> UInt8 {
        guard index < count else { throw endReached() }
        if base[index] <= 0x20 {
            // The single space after a colon at once; anything longer in a loop.
            if base[index] == 0x20, index + 1 < count, base[index + 1] > 0x20 {
                index += 1
                return base[index]
            }
            skipSomeWhitespace()
            guard index < count else { throw endReached() }
        }
        return base[index]
    }

    /// Consumes a UTF-8 byte order mark (EF BB BF) at the cursor, if there is one: some editors
    /// write one before the JSON, which is then no less a cache document.
    mutating func skipByteOrderMark() throws(JSONScanError) {
        guard index < count, base[index] == 0xEF else { return }
        guard index + 3 <= count else { throw endReached() }
        if base[index + 1] == 0xBB && base[index + 2] == 0xBF { index += 3 }
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
        var position = start
        var escaped = false
        let quotes: UInt64 = 0x2222_2222_2222_2222
        let backslashes: UInt64 = 0x5C5C_5C5C_5C5C_5C5C
        let low: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let raw = UnsafeRawPointer(base)
        // Short strings (names, ids) end within sixteen bytes: found eight at a time here.
        var steps = 0
        while steps < 2, position + 8 <= count {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: position, as: UInt64.self))
            let q = word ^ quotes
            let b = word ^ backslashes
            let found = ((q &- low) & ~q | (b &- low) & ~b) & high
            if found != 0 {
                position += found.trailingZeroBitCount >> 3
                if base[position] == UInt8(ascii: "\"") {
                    index = position + 1
                    return (start, position, false)
                }
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
                guard position < count,
                    let found = ByteSearch.firstOffset(of: 0x22, in: base + position, count: count - position)
                else {
                    throw endReached()
                }
                quote = position + found
            }
            guard quote > position,
                let slash = ByteSearch.firstOffset(of: 0x5C, in: base + position, count: quote - position)
            else {
                index = quote + 1
                return (start, quote, escaped)
            }
            escaped = true
            position = position + slash + 2
            guard position <= count else { throw endReached() }
        }
    }

    /// Reads a string value.
    mutating func string() throws(JSONScanError) -> String {
        let scanned = try scanString()
        return try makeString(scanned.start, scanned.end, escaped: scanned.escaped)
    }

    /// The string whose content spans `start..<end`, decoding escapes when `escaped`.
    func makeString(_ start: Int, _ end: Int, escaped: Bool) throws(JSONScanError) -> String {
        let bytes = UnsafeBufferPointer(start: base + start, count: end - start)
        guard escaped else { return String(decoding: bytes, as: UTF8.self) }
        guard let decoded = JSONStringEscapes.unescape(bytes) else {
            throw .malformed("invalid escape in a string", offset: origin + start)
        }
        return decoded
    }

    /// Whether the bytes `start..<end` equal `literal`.
    func bytesEqual(_ start: Int, _ end: Int, _ literal: StaticString) -> Bool {
        guard end - start == literal.utf8CodeUnitCount else { return false }
        return memcmpEqual(base + start, literal.utf8Start, end - start)
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
        guard memcmpEqual(base + index, word.utf8Start, length) else { throw fail("expected \(word)") }
        index += length
        try requireDelimiter()
    }

    /// Scans a number literal and returns its range (RFC 8259 §6 grammar).
    mutating func number() throws(JSONScanError) -> Range<Int> {
        let start = index
        func digit(_ i: Int) -> Bool { i < count && base[i] >= 0x30 && base[i] <= 0x39 }
        if index < count, base[index] == UInt8(ascii: "-") { index += 1 }
        guard digit(index) else { throw index >= count ? endReached() : fail("expected a digit") }
        if base[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while digit(index) { index += 1 }
        }
        if index < count, base[index] == UInt8(ascii: ".") {
            index += 1
            guard digit(index) else { throw index >= count ? endReached() : fail("expected a digit") }
            while digit(index) { index += 1 }
        }
        if index < count, base[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < count, base[index] == UInt8(ascii: "+") || base[index] == UInt8(ascii: "-") { index += 1 }
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

/// `memcmp(a, b, n) == 0` without importing Glibc here.
@inline(__always)
func memcmpEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
    var i = 0
    let ra = UnsafeRawPointer(a)
    let rb = UnsafeRawPointer(b)
    while i + 8 <= count {
        if ra.loadUnaligned(fromByteOffset: i, as: UInt64.self) != rb.loadUnaligned(fromByteOffset: i, as: UInt64.self)
        {
            return false
        }
        i += 8
    }
    while i < count {
        if a[i] != b[i] { return false }
        i += 1
    }
    return true
}
