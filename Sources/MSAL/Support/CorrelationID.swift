import Foundation
import MSALNative

/// New correlation ids: random (version 4) UUIDs from OpenSSL's generator.
///
/// `UUID()` reads `/dev/urandom` on every call on Linux (an open, a read and a close: several
/// microseconds); a silent request answered from the cache costs less than that, so its
/// correlation id comes from the in-process generator instead.
enum CorrelationID {
    static func make() -> UUID {
        guard var bytes = try? SecureRandom.bytes(16), bytes.count == 16 else { return UUID() }
        bytes[6] = (bytes[6] & 0x0F) | 0x40  // version 4
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}
