internal import CMSALOpenSSL

/// Cryptographically secure random bytes from OpenSSL's DRBG (`RAND_bytes`).
///
/// Use it for every secret or unguessable value: PKCE verifiers, `state`, `nonce`, AES-GCM nonces
/// and keys. Never use `SystemRandomNumberGenerator` or `random()` for those.
package enum SecureRandom {
    /// `count` random bytes.
    ///
    /// - Throws: `NativeError` when `count` is negative or above `Int32.max`, or when OpenSSL's
    ///   generator is not seeded or fails.
    package static func bytes(_ count: Int) throws(NativeError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: try checked(count))
        guard bytes.withUnsafeMutableBytes({ randomize($0) }) else { throw NativeError.openSSL("RAND_bytes") }
        return bytes
    }

    /// Fills `buffer` with random bytes.
    static func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(NativeError) {
        _ = try checked(buffer.count)
        guard randomize(buffer) else { throw NativeError.openSSL("RAND_bytes") }
    }

    /// Fills `buffer` (at most `Int32.max` bytes) with random bytes; false when OpenSSL fails.
    private static func randomize(_ buffer: UnsafeMutableRawBufferPointer) -> Bool {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return true }
        return RAND_bytes(base.assumingMemoryBound(to: UInt8.self), Int32(buffer.count)) == 1
    }

    private static func checked(_ count: Int) throws(NativeError) -> Int {
        guard count >= 0, count <= Int(Int32.max) else {
            throw NativeError(
                function: "SecureRandom.bytes", reason: "byte count \(count) is outside 0...\(Int32.max)")
        }
        return count
    }
}
