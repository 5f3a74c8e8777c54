// Byte-level primitives over `Span<UInt8>` for the JSON parser (`JSONReader`) and the ASCII fast
// paths, so that the MSAL target reads and compares bytes through bounds-checked views and never
// holds a raw pointer.
// Each one is `@inlinable`: the scanner calls them per word, and they must cost what the pointer
// code they replace cost.

extension Span where Element == UInt8 {
    /// The eight bytes at `offset` as a little-endian integer (bounds-checked, any alignment).
    @inlinable @inline(__always)
    package func littleEndianWord(at offset: Int) -> UInt64 {
        UInt64(littleEndian: bytes.unsafeLoadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// Whether the bytes at `offset` are those of `other` (eight at a time); `false` when they
    /// would run past the end.
    @inlinable
    package func bytesEqual(at offset: Int, _ other: Span<UInt8>) -> Bool {
        precondition(offset >= 0, "negative offset")
        guard offset <= count, other.count <= count - offset else { return false }
        var index = 0
        let length = other.count
        while index + 8 <= length {
            if littleEndianWord(at: offset + index) != other.littleEndianWord(at: index) { return false }
            index += 8
        }
        while index < length {
            if self[offset + index] != other[index] { return false }
            index += 1
        }
        return true
    }

    /// Whether the bytes at `offset` are those of `literal`; `false` when they would run past
    /// the end.
    @inlinable @inline(__always)
    package func bytesEqual(at offset: Int, _ literal: StaticString) -> Bool {
        literal.withUTF8Buffer { bytesEqual(at: offset, $0.span) }
    }

    /// The bytes as UTF-8 text, ill-formed sequences replaced (`String(decoding:as:)`).
    @inlinable
    package func decodedString() -> String {
        withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) }
    }

    /// The bytes as UTF-8 text, or `nil` when they are not UTF-8 (`String(validating:as:)`).
    @inlinable
    package func validatedString() -> String? {
        withUnsafeBufferPointer { String(validating: $0, as: UTF8.self) }
    }
}

extension StaticString {
    /// Calls `body` with the literal's UTF-8 bytes.
    @inlinable @inline(__always)
    package func withBytes<Result>(_ body: (Span<UInt8>) -> Result) -> Result {
        withUTF8Buffer { body($0.span) }
    }
}

extension String {
    /// Calls `body` with the string's UTF-8 bytes: in place for a native string (no copy, and no
    /// retain of the storage as `var copy = string; copy.withUTF8` costs), copied otherwise.
    @inlinable @inline(__always)
    package func withUTF8Span<Result>(_ body: (Span<UInt8>) throws -> Result) rethrows -> Result {
        if let result = try utf8.withContiguousStorageIfAvailable({ try body($0.span) }) { return result }
        var copy = self
        return try copy.withUTF8 { try body($0.span) }
    }

    /// A string of at most `capacity` UTF-8 bytes written by `body` into `output` (the bytes
    /// must be UTF-8; ill-formed ones are repaired as `String(decoding:as:)` does).
    @inlinable
    package init(utf8Capacity capacity: Int, initializingWith body: (inout OutputSpan<UInt8>) -> Void) {
        self.init(unsafeUninitializedCapacity: capacity) { buffer in
            var output = OutputSpan(buffer: buffer, initializedCount: 0)
            body(&output)
            return output.finalize(for: buffer)
        }
    }
}
