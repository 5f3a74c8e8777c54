import MSALNative

/// `application/x-www-form-urlencoded` encoding of OAuth request bodies (RFC 6749 Appendix B,
/// which refers to the HTML form encoding): names and values as UTF-8, every byte except ASCII
/// letters, digits and `*-._` percent-encoded with upper-case hex, and space as `+`.
enum FormURLEncoding {
    /// `name=value` pairs joined with `&`, in the given order.
    static func encode(_ parameters: [(name: String, value: String)]) -> String {
        String(decoding: encodedBytes(parameters), as: UTF8.self)
    }

    /// ``encode(_:)`` as UTF-8 bytes, ready to send.
    static func encodedBytes(_ parameters: [(name: String, value: String)]) -> [UInt8] {
        // One pass into room for the worst case (every byte escaped).
        var capacity = parameters.count * 2
        for parameter in parameters {
            capacity += 3 * (parameter.name.utf8.count + parameter.value.utf8.count)
        }
        return [UInt8](capacity: capacity) { (output: inout OutputSpan<UInt8>) in
            for (index, parameter) in parameters.enumerated() {
                if index > 0 { output.append(UInt8(ascii: "&")) }
                parameter.name.withUTF8Span { write($0, to: &output) }
                output.append(UInt8(ascii: "="))
                parameter.value.withUTF8Span { write($0, to: &output) }
            }
        }
    }

    /// Decodes a form body into its pairs; `nil` when a percent escape is malformed or the bytes
    /// are not UTF-8.
    static func decode(_ body: String) -> [(name: String, value: String)]? {
        var result: [(name: String, value: String)] = []
        for pair in body.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decodeComponent(parts[0]) else { return nil }
            let value = parts.count > 1 ? decodeComponent(parts[1]) : ""
            guard let value else { return nil }
            result.append((name, value))
        }
        return result
    }

    /// 1 for the bytes sent as they are (ASCII letters, digits and `*-._`), else 0.
    private static let isUnreserved: [UInt8] = (0...255).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "_"):
            1
        default:
            0
        }
    }

    /// Appends `bytes` encoded to `output` (which has room for every byte escaped).
    private static func write(_ bytes: Span<UInt8>, to output: inout OutputSpan<UInt8>) {
        let isUnreserved = Self.isUnreserved.span
        for index in bytes.indices {
            let byte = bytes[index]
            if isUnreserved[Int(byte)] == 1 {
                output.append(byte)
            } else if byte == UInt8(ascii: " ") {
                output.append(UInt8(ascii: "+"))
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hexDigit(byte >> 4))
                output.append(hexDigit(byte & 0x0F))
            }
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "A") &+ nibble &- 10
    }

    private static func decodeComponent(_ component: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = component.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
