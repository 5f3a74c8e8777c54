internal import CMSALOpenSSL

/// Converts ECDSA signatures from JWS's fixed-size `r || s` (RFC 7518 §3.4) to the DER
/// `ECDSA-Sig-Value` (RFC 3279 §2.2.3) that OpenSSL verifies (signing, the other way, is
/// `MSALTestSupportNative`'s).
enum ECDSASignature {
    /// The byte length of one P-256 coordinate or scalar.
    static let p256ScalarByteCount = 32

    /// DER for a raw `r || s` signature, or `nil` when its length is not twice `scalarByteCount`.
    static func der(fromRaw raw: [UInt8], scalarByteCount: Int) throws(NativeError) -> [UInt8]? {
        guard raw.count == 2 * scalarByteCount else { return nil }
        guard let signature = ECDSA_SIG_new() else { throw NativeError.openSSL("ECDSA_SIG_new") }
        defer { ECDSA_SIG_free(signature) }
        let r = BN_bin2bn(raw, Int32(scalarByteCount), nil)
        let s = Array(raw[scalarByteCount...]).withUnsafeBufferPointer {
            BN_bin2bn($0.baseAddress, Int32(scalarByteCount), nil)
        }
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            throw NativeError.openSSL("ECDSA_SIG_set0")
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { throw NativeError.openSSL("i2d_ECDSA_SIG") }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        guard written == length else { throw NativeError.openSSL("i2d_ECDSA_SIG") }
        return der
    }
}
