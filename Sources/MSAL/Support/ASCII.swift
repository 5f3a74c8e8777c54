import Foundation
import MSALNative

/// Fast paths for text the protocol keeps in ASCII (header names, scopes, ids, base64url), with
/// Foundation's Unicode-aware functions as the fallback, so results are the same as theirs.
enum ASCII {
    /// Whether `a` and `b` are equal when ASCII letters are compared without case.
    static func equalsIgnoringCase(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        return a.withUTF8Span { left in
            b.withUTF8Span { right in
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

    /// `text` percent-decoded, or `text` itself when it cannot be decoded: what
    /// `text.removingPercentEncoding ?? text` gives, without Foundation's cost (its first use costs
    /// `msal token` about 0.07 ms) when `text` has no `%` and so nothing to decode.
    static func percentDecoded(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return text }
        return text.removingPercentEncoding ?? text
    }

    /// `text` with every byte but the unreserved ones (``isUnreserved(_:)``) percent-encoded
    /// (`%3A`), as `addingPercentEncoding(withAllowedCharacters:)` with the alphanumerics and
    /// `-._~` encodes ASCII text, without Foundation's character sets (their first use costs
    /// `msal token` about 0.1 ms); `nil` for text that is not ASCII.
    static func percentEncodedExceptUnreserved(_ text: String) -> String? {
        guard text.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        let hex = Array("0123456789ABCDEF".utf8)
        var encoded: [UInt8] = []
        encoded.reserveCapacity(text.utf8.count * 3)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                encoded.append(byte)
            } else {
                encoded.append(contentsOf: [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    /// Whether `byte` is an unreserved URI character (RFC 3986 §2.3): a letter, a digit, `-`,
    /// `.`, `_` or `~`, which any part of a URL holds as it is.
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// A byte that is neither ASCII whitespace (space, tab, LF, VT, FF, CR) nor part of a
    /// non-ASCII character (which may be Unicode whitespace).
    private static func isPlain(_ byte: UInt8) -> Bool {
        byte < 0x80 && byte != 0x20 && !(0x09...0x0D).contains(byte)
    }
}
