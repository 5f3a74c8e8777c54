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
        return [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            for (index, parameter) in parameters.enumerated() {
                if index > 0 {
                    buffer[count] = UInt8(ascii: "&")
                    count += 1
                }
                count = parameter.name.withUTF8Bytes { write($0, to: buffer, at: count) }
                buffer[count] = UInt8(ascii: "=")
                count += 1
                count = parameter.value.withUTF8Bytes { write($0, to: buffer, at: count) }
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

    /// Writes `bytes` encoded into `buffer` from `start` on; returns the position after them.
    /// Runs of unreserved bytes (all of a typical token) are copied at once.
    private static func write(
        _ bytes: UnsafeBufferPointer<UInt8>, to buffer: UnsafeMutableBufferPointer<UInt8>, at start: Int
    ) -> Int {
        isUnreserved.withUnsafeBufferPointer { isUnreserved in
            var position = start
            var index = 0
            while index < bytes.count {
                var runEnd = index
                // Eight bytes per step while all are unreserved (tokens are long runs of them).
                while runEnd &+ 8 <= bytes.count {
                    let all =
                        isUnreserved[Int(bytes[runEnd])] & isUnreserved[Int(bytes[runEnd &+ 1])]
                        & isUnreserved[Int(bytes[runEnd &+ 2])] & isUnreserved[Int(bytes[runEnd &+ 3])]
                        & isUnreserved[Int(bytes[runEnd &+ 4])] & isUnreserved[Int(bytes[runEnd &+ 5])]
                        & isUnreserved[Int(bytes[runEnd &+ 6])] & isUnreserved[Int(bytes[runEnd &+ 7])]
                    guard all == 1 else { break }
                    runEnd &+= 8
                }
                while runEnd < bytes.count, isUnreserved[Int(bytes[runEnd])] == 1 { runEnd &+= 1 }
                if runEnd > index {
                    (buffer.baseAddress! + position).initialize(
                        from: bytes.baseAddress! + index, count: runEnd &- index)
                    position &+= runEnd &- index
                    index = runEnd
                    continue
                }
                let byte = bytes[index]
                if byte == UInt8(ascii: " ") {
                    buffer[position] = UInt8(ascii: "+")
                    position &+= 1
                } else {
                    buffer[position] = UInt8(ascii: "%")
                    buffer[position &+ 1] = hexDigit(byte >> 4)
                    buffer[position &+ 2] = hexDigit(byte & 0x0F)
                    position &+= 3
                }
                index &+= 1
            }
            return position
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
