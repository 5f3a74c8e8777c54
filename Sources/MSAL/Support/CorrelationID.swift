package import Foundation
import MSALNative

/// New correlation ids: random (version 4) UUIDs.
///
/// `UUID()` reads `/dev/urandom` on every call on Linux (an open, a read and a close: several
/// microseconds); a silent request answered from the cache costs less than that. A correlation
/// id must be unique, not secret, so its bytes come from ``IdentifierRandom`` (one `getrandom`).
package enum CorrelationID {
    package static func make() -> UUID {
        var bytes = IdentifierRandom.sixteenBytes()
        bytes.6 = (bytes.6 & 0x0F) | 0x40  // version 4
        bytes.8 = (bytes.8 & 0x3F) | 0x80  // RFC 4122 variant
        return UUID(uuid: bytes)
    }

    /// `uuid.uuidString` (upper-case, hyphenated), without Foundation's formatter, which takes
    /// half a microsecond.
    static func string(_ uuid: UUID) -> String {
        let u = uuid.uuid
        let bytes: InlineArray<16, UInt8> = [
            u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.7, u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15,
        ]
        return String(utf8Capacity: 36) { output in
            for index in bytes.indices {
                if index == 4 || index == 6 || index == 8 || index == 10 { output.append(UInt8(ascii: "-")) }
                output.append(hexDigit(bytes[index] >> 4))
                output.append(hexDigit(bytes[index] & 0x0F))
            }
        }
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "A") &+ nibble &- 10
    }
}
