/// `application/x-www-form-urlencoded` encoding of OAuth request bodies (RFC 6749 Appendix B,
/// which refers to the HTML form encoding): names and values as UTF-8, every byte except ASCII
/// letters, digits and `*-._` percent-encoded with upper-case hex, and space as `+`.
enum FormURLEncoding {
    /// `name=value` pairs joined with `&`, in the given order.
    static func encode(_ parameters: [(name: String, value: String)]) -> String {
        var output = ""
        output.reserveCapacity(parameters.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 2 })
        for (index, parameter) in parameters.enumerated() {
            if index > 0 { output.append("&") }
            appendEncoded(parameter.name, to: &output)
            output.append("=")
            appendEncoded(parameter.value, to: &output)
        }
        return output
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

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func appendEncoded(_ string: String, to output: inout String) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(string.utf8.count)
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"):
                bytes.append(byte)
            case UInt8(ascii: " "):
                bytes.append(UInt8(ascii: "+"))
            default:
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        output.append(String(decoding: bytes, as: UTF8.self))
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
