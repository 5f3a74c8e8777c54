/// Text from a server (an `error_description`, a suberror, a device code message, a user name)
/// made safe to show in a terminal or a log line: it is data, never terminal control.
///
/// Every character a terminal could act on is written as a visible escape such as `\u{1B}`:
/// C0 controls (escape, bell, backspace, carriage return, ...), DEL, the C1 controls (U+0080 to
/// U+009F, among them the one-character CSI U+009B), the Unicode line and paragraph separators,
/// and the bidirectional embedding, override and isolate characters that reorder what a reader
/// sees. Line feeds are kept or escaped as the caller asks (a log line is one line; a message
/// shown to a user may have several); a carriage return is always escaped, except in a CR LF
/// pair where line feeds are kept, which becomes a plain line feed.
package enum TerminalText {
    /// `text` with every control character escaped.
    ///
    /// - Parameter keepingLineFeeds: keep `\n` (and turn `\r\n` into `\n`) instead of escaping it.
    package static func escaped(_ text: String, keepingLineFeeds: Bool = false) -> String {
        guard needsEscaping(text, keepingLineFeeds: keepingLineFeeds) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        var scalars = text.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            if keepingLineFeeds {
                if scalar == "\n" {
                    result.unicodeScalars.append(scalar)
                    continue
                }
                if scalar == "\r", scalars.first == "\n" {
                    continue
                }
            }
            if isControl(scalar) {
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `text` escaped as one line, cut after `limit` characters (with `...` to say so).
    package static func quoted(_ text: String, limit: Int) -> String {
        let line = escaped(text)
        guard line.count > limit else { return line }
        return String(line.prefix(max(0, limit))) + "..."
    }

    /// Whether `scalar` is one a terminal may act on.
    package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x2028, 0x2029: true
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true
        default: false
        }
    }

    /// Whether `text` holds a character to escape; a kept line feed is not one, so that a line of
    /// printable ASCII (an access token and its newline) is written as it is, without a copy.
    private static func needsEscaping(_ text: String, keepingLineFeeds: Bool) -> Bool {
        for byte in text.utf8 where !(keepingLineFeeds && byte == 0x0A) {
            // Any byte of a multi-byte character may start one of the controls above (C1, bidi):
            // look at the scalars then; plain printable ASCII needs nothing.
            if byte < 0x20 || byte >= 0x7F {
                return text.unicodeScalars.contains(where: isControl)
            }
        }
        return false
    }
}
