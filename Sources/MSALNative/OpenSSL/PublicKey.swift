internal import CMSALOpenSSL

/// Owns an `EVP_PKEY` holding only a public key, built from JWK components.
final class PublicKey: @unchecked Sendable {
    // @unchecked: the EVP_PKEY is never mutated after construction, and OpenSSL 3 allows
    // concurrent read-only use of a key (each verification makes its own EVP_MD_CTX).

    let pointer: OpaquePointer

    private init(_ pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// An RSA public key from its big-endian modulus and exponent.
    static func rsa(modulus: [UInt8], exponent: [UInt8]) throws(NativeError) -> PublicKey {
        guard let builder = OSSL_PARAM_BLD_new() else { throw NativeError.openSSL("OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(builder) }
        // BN_bin2bn copies the bytes; the builder keeps the BIGNUM pointers (and the static
        // names) until OSSL_PARAM_BLD_to_param, so both BIGNUMs are freed only after it.
        let n = BN_bin2bn(modulus, Int32(modulus.count), nil)
        defer { BN_free(n) }
        let e = BN_bin2bn(exponent, Int32(exponent.count), nil)
        defer { BN_free(e) }
        guard let n, let e,
            OSSL_PARAM_BLD_push_BN(builder, cmsal_param_rsa_n(), n) == 1,
            OSSL_PARAM_BLD_push_BN(builder, cmsal_param_rsa_e(), e) == 1
        else { throw NativeError.openSSL("OSSL_PARAM_BLD_push_BN") }
        guard let params = OSSL_PARAM_BLD_to_param(builder) else {
            throw NativeError.openSSL("OSSL_PARAM_BLD_to_param")
        }
        defer { OSSL_PARAM_free(params) }
        return try fromData(keyType: cmsal_keytype_rsa(), params)
    }

    /// A P-256 public key from its affine coordinates (32 bytes each).
    static func p256(x: [UInt8], y: [UInt8]) throws(NativeError) -> PublicKey {
        guard let builder = OSSL_PARAM_BLD_new() else { throw NativeError.openSSL("OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(builder) }
        // The uncompressed SEC 1 point. The builder keeps a pointer to it until
        // OSSL_PARAM_BLD_to_param copies it, so both calls run inside withUnsafeBytes.
        let point: [UInt8] = [0x04] + x + y
        let params = point.withUnsafeBytes { point -> UnsafeMutablePointer<OSSL_PARAM>? in
            guard OSSL_PARAM_BLD_push_utf8_string(builder, cmsal_param_group_name(), cmsal_curve_p256(), 0) == 1,
                OSSL_PARAM_BLD_push_octet_string(builder, cmsal_param_pub_key(), point.baseAddress, point.count)
                    == 1
            else { return nil }
            return OSSL_PARAM_BLD_to_param(builder)
        }
        guard let params else { throw NativeError.openSSL("OSSL_PARAM_BLD_to_param") }
        defer { OSSL_PARAM_free(params) }
        return try fromData(keyType: cmsal_keytype_ec(), params)
    }

    /// EVP_PKEY_fromdata for a public key; `keyType` must have static lifetime (the context keeps it).
    private static func fromData(
        keyType: UnsafePointer<CChar>, _ params: UnsafeMutablePointer<OSSL_PARAM>
    ) throws(NativeError)
        -> PublicKey
    {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, keyType, nil) else {
            throw NativeError.openSSL("EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_fromdata_init(context) == 1,
            EVP_PKEY_fromdata(context, &key, cmsal_selection_public_key(), params) == 1,
            let key
        else { throw NativeError.openSSL("EVP_PKEY_fromdata") }
        return PublicKey(key)
    }

    /// The size of the key in bits (the modulus for RSA, the field for EC).
    var bits: Int { Int(EVP_PKEY_get_bits(pointer)) }

    /// Whether `signature` is a valid SHA-256 signature (PKCS#1 v1.5 for RSA, DER ECDSA for EC)
    /// of `message`. Any failure to verify, malformed signatures included, is `false`.
    func verifySHA256(signature: [UInt8], message: [UInt8]) throws(NativeError) -> Bool {
        guard let context = EVP_MD_CTX_new() else { throw NativeError.openSSL("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, pointer) == 1 else {
            throw NativeError.openSSL("EVP_DigestVerifyInit")
        }
        let status = signature.withNonNullBytes { signature in
            message.withNonNullBytes { message in
                EVP_DigestVerify(context, signature.pointer, signature.count, message.pointer, message.count)
            }
        }
        // 0 is a bad signature, a negative value a malformed one: both are "not verified". The
        // reasons OpenSSL queued must not leak into the next caller's error.
        ERR_clear_error()
        return status == 1
    }
}

extension [UInt8] {
    /// Calls `body` with a pointer that is never null, even for an empty array (C APIs may
    /// reject a null pointer with a zero length).
    func withNonNullBytes<Result>(_ body: ((pointer: UnsafePointer<UInt8>, count: Int)) -> Result) -> Result {
        if isEmpty {
            var placeholder: UInt8 = 0
            return withUnsafePointer(to: &placeholder) { body(($0, 0)) }
        }
        return withUnsafeBufferPointer { buffer in
            // Non-empty arrays always have storage.
            body((buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!, buffer.count))
        }
    }
}
