import Foundation
import MSALNative

/// New correlation ids: random (version 4) UUIDs.
///
/// `UUID()` reads `/dev/urandom` on every call on Linux (an open, a read and a close: several
/// microseconds); a silent request answered from the cache costs less than that. A correlation
/// id must be unique, not secret, so its bytes come from ``IdentifierRandom`` (one `getrandom`).
enum CorrelationID {
    static func make() -> UUID {
        var bytes = IdentifierRandom.sixteenBytes()
        bytes.6 = (bytes.6 & 0x0F) | 0x40  // version 4
        bytes.8 = (bytes.8 & 0x3F) | 0x80  // RFC 4122 variant
        return UUID(uuid: bytes)
    }

    /// `uuid.uuidString` (upper-case, hyphenated), without Foundation's formatter, which takes
    /// half a microsecond.
    static func string(_ uuid: UUID) -> String {
        withUnsafeBytes(of: uuid.uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { output in
                let digits: StaticString = "0123456789ABCDEF"
                var position = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        output[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    output[position] = digits.utf8Start[Int(byte >> 4)]
                    output[position + 1] = digits.utf8Start[Int(byte & 0x0F)]
                    position += 2
                }
                return position
            }
        }
    }
}
