import Glibc

/// Random bytes for identifiers that must be unique but need not be secret (correlation ids).
///
/// One `getrandom` system call through glibc's `arc4random_buf`: about a quarter of a
/// microsecond here, against a microsecond and more for OpenSSL's `RAND_bytes` and several for
/// Foundation's `UUID()`, which opens and reads `/dev/urandom` each time. Secrets (PKCE, `state`,
/// `nonce`, keys) use ``SecureRandom``.
package enum IdentifierRandom {
    /// Sixteen random bytes, shaped as a UUID's.
    package typealias Sixteen = (
        UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
        UInt8
    )

    /// Sixteen random bytes.
    package static func sixteenBytes() -> Sixteen {
        var bytes: Sixteen = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { buffer in
            arc4random_buf(buffer.baseAddress!, buffer.count)
        }
        return bytes
    }
}
