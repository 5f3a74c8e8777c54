import Foundation

/// The `WWW-Authenticate` field of RFC 9110 §11.6.1, read into challenges.
///
/// ```
/// WWW-Authenticate = #challenge
/// challenge        = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
/// auth-param       = token BWS "=" BWS ( token / quoted-string )
/// token68          = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
/// ```
///
/// Several field lines form one list (RFC 9110 §5.3), so the values are read as if joined by
/// commas. Empty list elements are skipped. Scheme and parameter names compare case-insensitively
/// (they are kept lowercased in ``Challenge/parameters``; the scheme keeps its spelling). A
/// parameter named twice in one challenge, a quoted string without its closing quote, a control
/// character, or anything the grammar does not allow fails the whole field with a ``Problem``: a
/// list cannot be re-synchronised after a syntax error, and a challenge that two readers could
/// read differently must not be used. Input is bounded (``maximumLength``, ``maximumChallenges``,
/// ``maximumParameters``), so a hostile field costs linear time and bounded memory.
enum WWWAuthenticate {
    /// The longest field accepted, all values together: 64 KiB, the transport's header limit.
    static let maximumLength = 65_536
    /// The most challenges accepted in one field.
    static let maximumChallenges = 64
    /// The most parameters accepted in one challenge.
    static let maximumParameters = 64

    /// One challenge: a scheme with either a token68 or parameters.
    struct Challenge: Sendable, Equatable {
        /// The scheme as written, e.g. `Bearer`.
        var scheme: String
        /// The token68 after the scheme, when the challenge has one.
        var token68: String?
        /// The parameters, by lowercased name, in the order they came.
        var parameters: [(name: String, value: String)]

        /// The value of the parameter `name` (compared case-insensitively).
        func parameter(_ name: String) -> String? {
            let lowered = name.lowercased()
            return parameters.first { $0.name == lowered }?.value
        }

        static func == (lhs: Challenge, rhs: Challenge) -> Bool {
            lhs.scheme == rhs.scheme && lhs.token68 == rhs.token68
                && lhs.parameters.map(\.name) == rhs.parameters.map(\.name)
                && lhs.parameters.map(\.value) == rhs.parameters.map(\.value)
        }
    }

    /// Why a field is not a valid list of challenges; never quotes the input (it may carry tokens).
    enum Problem: Error, Equatable, CustomStringConvertible {
        /// Longer than ``maximumLength`` bytes.
        case tooLong(Int)
        /// More than ``maximumChallenges`` challenges or ``maximumParameters`` parameters in one.
        case tooMany
        /// No challenge at all (an empty field).
        case empty
        /// A quoted string without its closing quote.
        case unterminatedQuotedString(offset: Int)
        /// A byte the grammar does not allow at this place (a control character, a stray quote).
        case unexpectedCharacter(offset: Int)
        /// A parameter named twice in one challenge.
        case duplicateParameter(String)

        var description: String {
            switch self {
            case .tooLong(let length):
                "is \(length) bytes long, over the limit of \(WWWAuthenticate.maximumLength)"
            case .tooMany:
                "has more than \(WWWAuthenticate.maximumChallenges) challenges or "
                    + "\(WWWAuthenticate.maximumParameters) parameters in one challenge"
            case .empty: "has no challenge"
            case .unterminatedQuotedString(let offset): "has a quoted string not closed (from byte \(offset))"
            case .unexpectedCharacter(let offset): "has an unexpected character at byte \(offset)"
            case .duplicateParameter(let name):
                "names the parameter \(TerminalText.escaped(name)) twice in one challenge"
            }
        }
    }

    /// Reads `values` (one per field line) as one list of challenges.
    static func parse(_ values: [String]) throws(Problem) -> [Challenge] {
        let length = values.reduce(0) { $0 + $1.utf8.count + 1 }
        guard length <= maximumLength + 1 else { throw .tooLong(length - 1) }
        var joined: [UInt8] = []
        joined.reserveCapacity(length)
        for (index, value) in values.enumerated() {
            if index > 0 { joined.append(UInt8(ascii: ",")) }
            joined.append(contentsOf: value.utf8)
        }
        var reader = Reader(bytes: joined)
        let challenges = try reader.challenges()
        guard !challenges.isEmpty else { throw .empty }
        return challenges
    }
}

/// A cursor over the field's bytes.
private struct Reader {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private var atEnd: Bool { index >= bytes.count }
    private var current: UInt8? { atEnd ? nil : bytes[index] }

    /// `tchar` of RFC 9110 §5.6.2.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    /// A token68 character other than `=` (RFC 9110 §11.2).
    static func isToken68Character(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: Array("-._~+/".utf8).contains(byte)
        }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    private mutating func skipWhitespace() {
        while let byte = current, Self.isWhitespace(byte) { index += 1 }
    }

    /// Skips whitespace and empty list elements; returns whether a comma was passed.
    @discardableResult
    private mutating func skipSeparators() -> Bool {
        var sawComma = false
        while let byte = current, Self.isWhitespace(byte) || byte == UInt8(ascii: ",") {
            if byte == UInt8(ascii: ",") { sawComma = true }
            index += 1
        }
        return sawComma
    }

    private mutating func token() -> String? {
        let start = index
        while let byte = current, Self.isTokenCharacter(byte) { index += 1 }
        guard index > start else { return nil }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private func unexpected() -> WWWAuthenticate.Problem {
        .unexpectedCharacter(offset: index)
    }

    mutating func challenges() throws(WWWAuthenticate.Problem) -> [WWWAuthenticate.Challenge] {
        var challenges: [WWWAuthenticate.Challenge] = []
        skipSeparators()
        while !atEnd {
            guard challenges.count < WWWAuthenticate.maximumChallenges else { throw .tooMany }
            guard let scheme = token() else { throw unexpected() }
            var challenge = WWWAuthenticate.Challenge(scheme: scheme, token68: nil, parameters: [])
            let hadSpace = current.map(Self.isWhitespace) ?? false
            skipWhitespace()
            if hadSpace, let token68 = token68() {
                challenge.token68 = token68
            } else if hadSpace, current.map(Self.isTokenCharacter) ?? false {
                try parameters(into: &challenge)
            }
            challenges.append(challenge)
            // After a challenge: the end, or a comma before the next one.
            skipWhitespace()
            guard atEnd || current == UInt8(ascii: ",") else { throw unexpected() }
            skipSeparators()
        }
        return challenges
    }

    /// A token68 when the bytes at the cursor are one followed by the end of the challenge;
    /// otherwise `nil` with the cursor unmoved.
    private mutating func token68() -> String? {
        let start = index
        var end = index
        while end < bytes.count, Self.isToken68Character(bytes[end]) { end += 1 }
        guard end > start else { return nil }
        while end < bytes.count, bytes[end] == UInt8(ascii: "=") { end += 1 }
        var after = end
        while after < bytes.count, Self.isWhitespace(bytes[after]) { after += 1 }
        guard after == bytes.count || bytes[after] == UInt8(ascii: ",") else { return nil }
        index = end
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// One or more `name=value` parameters separated by commas, up to the next challenge or the end.
    private mutating func parameters(
        into challenge: inout WWWAuthenticate.Challenge
    ) throws(WWWAuthenticate.Problem) {
        while true {
            guard let name = token() else { throw unexpected() }
            skipWhitespace()
            guard current == UInt8(ascii: "=") else { throw unexpected() }
            index += 1
            skipWhitespace()
            let value: String
            if current == UInt8(ascii: "\"") {
                value = try quotedString()
            } else if let token = token() {
                value = token
            } else {
                throw unexpected()
            }
            let lowered = name.lowercased()
            guard !challenge.parameters.contains(where: { $0.name == lowered }) else {
                throw .duplicateParameter(lowered)
            }
            guard challenge.parameters.count < WWWAuthenticate.maximumParameters else { throw .tooMany }
            challenge.parameters.append((lowered, value))
            // Another parameter of this challenge follows a comma when the next element is
            // `token BWS "="`; anything else ends the challenge.
            let mark = index
            skipWhitespace()
            guard current == UInt8(ascii: ",") else {
                index = mark
                return
            }
            skipSeparators()
            let elementStart = index
            guard token() != nil else {
                index = mark
                return
            }
            skipWhitespace()
            let isParameter = current == UInt8(ascii: "=")
            index = isParameter ? elementStart : mark
            if !isParameter { return }
        }
    }

    /// A quoted string (RFC 9110 §5.6.4) with its quoted pairs resolved; the cursor is on `"`.
    private mutating func quotedString() throws(WWWAuthenticate.Problem) -> String {
        let start = index
        index += 1
        var value: [UInt8] = []
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: value, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard let escaped = current else { throw .unterminatedQuotedString(offset: start) }
                guard Self.isQuotedText(escaped) || escaped == UInt8(ascii: "\"") || escaped == UInt8(ascii: "\\")
                else { throw unexpected() }
                value.append(escaped)
                index += 1
            default:
                guard Self.isQuotedText(byte) else { throw unexpected() }
                value.append(byte)
                index += 1
            }
        }
        throw .unterminatedQuotedString(offset: start)
    }

    /// `qdtext` (and what a quoted pair may hold besides `"` and `\`): tab, space, visible ASCII,
    /// and the bytes of non-ASCII characters (`obs-text`).
    private static func isQuotedText(_ byte: UInt8) -> Bool {
        byte == 0x09 || (byte >= 0x20 && byte != 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\"))
    }
}
