internal import CMSALOpenSSL

/// SHA-256 (FIPS 180-4) through OpenSSL's EVP interface.
///
/// A digest, not a MAC: anyone can compute it, so it proves nothing about who made the data.
/// Used for PKCE challenges (RFC 7636 §4.2), JWS signing inputs and cache fingerprints.
package enum SHA256 {
    /// The digest length in bytes.
    package static let byteCount = 32

    /// The SHA-256 digest of `bytes`.
    package static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        if let digest = bytes.withContiguousStorageIfAvailable({ hash(buffer: UnsafeRawBufferPointer($0)) }) {
            return digest
        }
        return Array(bytes).withUnsafeBytes { hash(buffer: $0) }
    }

    /// The SHA-256 digest of the UTF-8 encoding of `string`.
    package static func hash(_ string: String) -> [UInt8] {
        var string = string
        return string.withUTF8 { hash(buffer: UnsafeRawBufferPointer($0)) }
    }

    private static func hash(buffer: UnsafeRawBufferPointer) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let status = digest.withUnsafeMutableBytes { output in
            // Empty input may have no base address; OpenSSL does not read `data` when `count` is 0.
            EVP_Digest(
                buffer.baseAddress, buffer.count, output.baseAddress?.assumingMemoryBound(to: UInt8.self),
                &length, EVP_sha256(), nil)
        }
        // EVP_Digest with SHA-256 from the default provider cannot fail short of memory
        // exhaustion or a broken OpenSSL installation; neither depends on the input.
        guard status == 1, length == byteCount else {
            fatalError("EVP_Digest(SHA-256) failed: \(NativeError.openSSL("EVP_Digest").reason)")
        }
        return digest
    }
}
