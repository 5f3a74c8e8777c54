internal import CMSALOpenSSL

/// Converts ECDSA signatures between JWS's fixed-size `r || s` (RFC 7518 §3.4) and the DER
/// `ECDSA-Sig-Value` (RFC 3279 §2.2.3) that OpenSSL signs and verifies.
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

    /// The raw `r || s` form of a DER signature, each scalar left-padded to `scalarByteCount`.
    static func raw(fromDER der: [UInt8], scalarByteCount: Int) throws(NativeError) -> [UInt8] {
        let decoded = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let decoded else { throw NativeError.openSSL("d2i_ECDSA_SIG") }
        defer { ECDSA_SIG_free(decoded) }
        var raw = [UInt8](repeating: 0, count: 2 * scalarByteCount)
        let padded = raw.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return false }
            return BN_bn2binpad(ECDSA_SIG_get0_r(decoded), base, Int32(scalarByteCount)) == scalarByteCount
                && BN_bn2binpad(ECDSA_SIG_get0_s(decoded), base + scalarByteCount, Int32(scalarByteCount))
                    == scalarByteCount
        }
        guard padded else { throw NativeError.openSSL("BN_bn2binpad") }
        return raw
    }
}
