internal import CMSALOpenSSL
package import MSALNative

extension PrivateKey {
    /// Signs `message` (a JWS signing input) with this key: `RS256` for RSA keys (PKCS#1 v1.5
    /// with SHA-256), `ES256` for P-256 keys (raw `r || s`, 64 bytes, as JWS requires).
    ///
    /// - Throws: `NativeError` when `algorithm` is not RS256 or ES256, does not fit this key, or
    ///   OpenSSL fails.
    package func sign(_ message: [UInt8], algorithm: String) throws(NativeError) -> [UInt8] {
        let function = "PrivateKey.sign"
        let requested = try SignatureAlgorithm(named: algorithm, in: function)
        guard requested.keyType == jwkKeyType else {
            throw NativeError(
                function: function,
                reason: "\(requested.rawValue) needs an \(requested.keyType) key, this key is \(jwkKeyType)")
        }
        let signature = try signSHA256(message)
        switch requested {
        case .rs256:
            return signature
        case .es256:
            return try Self.rawECDSASignature(fromDER: signature, scalarByteCount: Self.p256ScalarByteCount)
        }
    }

    /// The public half as JWK members (RFC 7518 §6), base64url without padding, ready for a JWKS:
    /// `kty`, `n`, `e` for RSA (minimal big-endian, no leading zero bytes) or `kty`, `crv`, `x`,
    /// `y` for P-256 (each coordinate the full 32 bytes, leading zeros kept).
    package func publicJWK() throws(NativeError) -> [String: String] {
        switch algorithm {
        case .rsa:
            return [
                "kty": "RSA",
                "n": Base64URL.encode(try bigNumberParameter(cmsal_param_rsa_n(), padTo: nil)),
                "e": Base64URL.encode(try bigNumberParameter(cmsal_param_rsa_e(), padTo: nil)),
            ]
        case .ecP256:
            let size = Self.p256ScalarByteCount
            return [
                "kty": "EC",
                "crv": "P-256",
                "x": Base64URL.encode(try bigNumberParameter(cmsal_param_ec_pub_x(), padTo: size)),
                "y": Base64URL.encode(try bigNumberParameter(cmsal_param_ec_pub_y(), padTo: size)),
            ]
        }
    }

    private var jwkKeyType: String {
        switch algorithm {
        case .rsa: "RSA"
        case .ecP256: "EC"
        }
    }

    /// A SHA-256 signature in OpenSSL's native form (PKCS#1 v1.5 for RSA, DER for ECDSA).
    private func signSHA256(_ message: [UInt8]) throws(NativeError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw NativeError.openSSL("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pointer) == 1 else {
            throw NativeError.openSSL("EVP_DigestSignInit")
        }
        // The first call gives the maximum length, the second signs (ECDSA may be shorter).
        var length = 0
        guard EVP_DigestSign(context, nil, &length, nil, 0) == 1, length > 0 else {
            throw NativeError.openSSL("EVP_DigestSign")
        }
        var signature = [UInt8](repeating: 0, count: length)
        let status = message.withNonNullBytes { message in
            signature.withUnsafeMutableBufferPointer { output in
                EVP_DigestSign(context, output.baseAddress, &length, message.pointer, message.count)
            }
        }
        guard status == 1, length <= signature.count else { throw NativeError.openSSL("EVP_DigestSign") }
        return Array(signature.prefix(length))
    }

    /// A big-number key parameter, big-endian: minimal, or left-padded to `padTo` bytes.
    private func bigNumberParameter(_ name: UnsafePointer<CChar>, padTo size: Int?) throws(NativeError) -> [UInt8] {
        var number: OpaquePointer?
        guard EVP_PKEY_get_bn_param(pointer, name, &number) == 1, let number else {
            throw NativeError.openSSL("EVP_PKEY_get_bn_param")
        }
        defer { BN_free(number) }
        let minimal = Int(cmsal_bn_num_bytes(number))
        let count = size ?? minimal
        guard minimal <= count else {
            throw NativeError(
                function: "PrivateKey.publicJWK", reason: "a key parameter has \(minimal) bytes, more than \(count)")
        }
        var bytes = [UInt8](repeating: 0, count: count)
        let written = bytes.withUnsafeMutableBufferPointer { BN_bn2binpad(number, $0.baseAddress, Int32(count)) }
        guard written == count else { throw NativeError.openSSL("BN_bn2binpad") }
        return bytes
    }

    /// The byte length of one P-256 coordinate or scalar.
    private static let p256ScalarByteCount = 32

    /// The raw `r || s` form of a DER signature, each scalar left-padded to `scalarByteCount`.
    private static func rawECDSASignature(fromDER der: [UInt8], scalarByteCount: Int) throws(NativeError) -> [UInt8] {
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

extension [UInt8] {
    /// Calls `body` with a pointer that is never null, even for an empty array (C APIs may
    /// reject a null pointer with a zero length). As `MSALNative`'s, whose is internal.
    fileprivate func withNonNullBytes<Result>(
        _ body: ((pointer: UnsafePointer<UInt8>, count: Int)) -> Result
    ) -> Result {
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
