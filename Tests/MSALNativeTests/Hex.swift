/// Hexadecimal test vectors as bytes and back.
enum Hex {
    /// The bytes of a hex string (whitespace ignored); traps on malformed test data.
    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.filter { !$0.isWhitespace }.utf8)
        precondition(digits.count % 2 == 0, "odd hex length in a test vector")
        return stride(from: 0, to: digits.count, by: 2).map { index in
            guard let byte = UInt8(String(decoding: digits[index...(index + 1)], as: UTF8.self), radix: 16) else {
                preconditionFailure("bad hex in a test vector")
            }
            return byte
        }
    }

    /// Lowercase hex of `bytes`.
    static func string(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
