/// Base64 with the URL and filename safe alphabet (RFC 4648 §5), as JOSE and PKCE use it.
///
/// `encode` writes no padding (RFC 7515 §2). `decode` accepts input with or without `=` padding and
/// is strict otherwise: it returns `nil` for characters outside the alphabet (including `+`, `/`
/// and whitespace), for impossible lengths, for misplaced padding, and for non-canonical input
/// whose unused trailing bits are not zero (RFC 4648 §3.5), so every byte string has exactly one
/// accepted encoding.
package enum Base64URL {
    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8
    )

    /// Marks a byte that is not in the alphabet.
    private static let invalid: UInt8 = 0xFF

    /// The 6-bit value of each ASCII byte, or `invalid`.
    private static let decodingTable: [UInt8] = {
        var table = [UInt8](repeating: invalid, count: 256)
        for (value, character) in alphabet.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        return table
    }()

    /// Encodes bytes as base64url without padding.
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= input.count {
            let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            output.append(alphabet[Int(group >> 18 & 0x3F)])
            output.append(alphabet[Int(group >> 12 & 0x3F)])
            output.append(alphabet[Int(group >> 6 & 0x3F)])
            output.append(alphabet[Int(group & 0x3F)])
            index += 3
        }
        switch input.count - index {
        case 1:
            let group = UInt32(input[index]) << 16
            output.append(alphabet[Int(group >> 18 & 0x3F)])
            output.append(alphabet[Int(group >> 12 & 0x3F)])
        case 2:
            let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            output.append(alphabet[Int(group >> 18 & 0x3F)])
            output.append(alphabet[Int(group >> 12 & 0x3F)])
            output.append(alphabet[Int(group >> 6 & 0x3F)])
        default:
            break
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes base64url, with or without padding.
    ///
    /// - Returns: the bytes, or `nil` when `string` is not canonical base64url.
    package static func decode(_ string: String) -> [UInt8]? {
        var string = string
        return string.withUTF8 { decode(utf8: $0) }
    }

    /// Decodes base64url from its UTF-8 (ASCII) bytes, with or without padding.
    ///
    /// - Returns: the bytes, or `nil` when `bytes` are not canonical base64url.
    package static func decode(_ bytes: some Collection<UInt8>) -> [UInt8]? {
        if let result = bytes.withContiguousStorageIfAvailable({ decode(utf8: $0) }) {
            return result
        }
        return Array(bytes).withUnsafeBufferPointer { decode(utf8: $0) }
    }

    private static func decode(utf8 input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var length = input.count
        let equals = UInt8(ascii: "=")
        if length > 0, input[length - 1] == equals {
            // Padded input: the whole string must be quads, with one or two '=' at the end.
            guard length % 4 == 0 else { return nil }
            length -= 1
            if input[length - 1] == equals { length -= 1 }
            guard length % 4 != 0 else { return nil }
        }
        let remainder = length % 4
        guard remainder != 1 else { return nil }

        var output: [UInt8] = []
        output.reserveCapacity(length / 4 * 3 + 2)
        let table = decodingTable
        var index = 0
        while index + 4 <= length {
            let a = table[Int(input[index])]
            let b = table[Int(input[index + 1])]
            let c = table[Int(input[index + 2])]
            let d = table[Int(input[index + 3])]
            // Alphabet values are below 64; `invalid` (0xFF) has the top bits set.
            guard (a | b | c | d) & 0xC0 == 0 else { return nil }
            let group = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
            output.append(UInt8(truncatingIfNeeded: group >> 16))
            output.append(UInt8(truncatingIfNeeded: group >> 8))
            output.append(UInt8(truncatingIfNeeded: group))
            index += 4
        }
        switch remainder {
        case 2:
            let a = table[Int(input[index])]
            let b = table[Int(input[index + 1])]
            // b's low 4 bits do not fit in the output: they must be zero.
            guard (a | b) & 0xC0 == 0, b & 0x0F == 0 else { return nil }
            output.append(a << 2 | b >> 4)
        case 3:
            let a = table[Int(input[index])]
            let b = table[Int(input[index + 1])]
            let c = table[Int(input[index + 2])]
            // c's low 2 bits do not fit in the output: they must be zero.
            guard (a | b | c) & 0xC0 == 0, c & 0x03 == 0 else { return nil }
            output.append(a << 2 | b >> 4)
            output.append(b << 4 | c >> 2)
        default:
            break
        }
        return output
    }
}
