import Foundation

/// Fast paths for text the protocol keeps in ASCII (header names, scopes, ids, base64url), with
/// Foundation's Unicode-aware functions as the fallback, so results are the same as theirs.
enum ASCII {
    /// Whether `a` and `b` are equal when ASCII letters are compared without case.
    static func equalsIgnoringCase(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var a = a
        var b = b
        return a.withUTF8 { left in
            b.withUTF8 { right in
                for index in 0..<left.count where left[index] != right[index] {
                    let x = left[index]
                    let y = right[index]
                    let lowerX = (x >= 65 && x <= 90) ? x | 0x20 : x
                    let lowerY = (y >= 65 && y <= 90) ? y | 0x20 : y
                    if lowerX != lowerY { return false }
                }
                return true
            }
        }
    }

    /// `text` without leading and trailing whitespace and newlines, as
    /// `trimmingCharacters(in: .whitespacesAndNewlines)` returns it, without Foundation's cost in
    /// the usual case: when neither end is whitespace or non-ASCII, `text` itself.
    static func trimmed(_ text: String) -> String {
        trimmed(text[...])
    }

    /// ``trimmed(_:)-(String)`` for a piece of a string.
    static func trimmed(_ text: Substring) -> String {
        guard let first = text.utf8.first, let last = text.utf8.last else { return "" }
        if isPlain(first) && isPlain(last) { return String(text) }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A byte that is neither ASCII whitespace (space, tab, LF, VT, FF, CR) nor part of a
    /// non-ASCII character (which may be Unicode whitespace).
    private static func isPlain(_ byte: UInt8) -> Bool {
        byte < 0x80 && byte != 0x20 && !(0x09...0x0D).contains(byte)
    }
}

extension String {
    /// Calls `body` with the string's UTF-8 bytes: in place for a native string (no copy, and no
    /// retain of the storage as `var copy = string; copy.withUTF8` costs), copied otherwise.
    @inline(__always)
    func withUTF8Bytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        if let result = try utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = self
        return try copy.withUTF8(body)
    }
}
