internal import CMSALOpenSSL
package import MSALNative

/// An OpenSSL key pair (RSA or EC P-256) generated in process. Owns its `EVP_PKEY`.
///
/// Used to sign test certificates and tokens in the loopback servers; the library itself only
/// verifies signatures (`MSALNative`), which is why this lives in `MSALTestSupportNative`.
package final class PrivateKey: @unchecked Sendable {
    // @unchecked: the EVP_PKEY is never mutated after generation, and OpenSSL 3 allows
    // concurrent read-only use of a key from several threads.

    /// The key algorithm.
    package enum Algorithm: Sendable {
        /// RSA with the given modulus size in bits.
        case rsa(bits: Int)
        /// ECDSA on NIST P-256.
        case ecP256
    }

    package let algorithm: Algorithm
    let pointer: OpaquePointer

    /// Generates a new key pair.
    package init(_ algorithm: Algorithm) throws(NativeError) {
        let generated: OpaquePointer?
        switch algorithm {
        case .rsa(let bits):
            generated = cmsal_rsa_keygen(UInt32(bits))
        case .ecP256:
            generated = cmsal_ec_p256_keygen()
        }
        guard let generated else { throw NativeError.openSSL("EVP_PKEY_Q_keygen") }
        self.algorithm = algorithm
        self.pointer = generated
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// The private key as PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`).
    package func privateKeyPEM() throws(NativeError) -> String {
        try Self.writePEM("PEM_write_bio_PrivateKey") { bio in
            PEM_write_bio_PrivateKey(bio, pointer, nil, nil, 0, nil, nil)
        }
    }

    /// The public key as SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`).
    package func publicKeyPEM() throws(NativeError) -> String {
        try Self.writePEM("PEM_write_bio_PUBKEY") { bio in
            PEM_write_bio_PUBKEY(bio, pointer)
        }
    }

    /// Runs `write` against a memory BIO and returns what it wrote.
    static func writePEM(_ function: String, _ write: (OpaquePointer) -> Int32) throws(NativeError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw NativeError.openSSL("BIO_new") }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { throw NativeError.openSSL(function) }
        var data: UnsafeMutablePointer<CChar>?
        let length = cmsal_bio_mem_data(bio, &data)
        guard let data, length > 0 else { throw NativeError.openSSL(function) }
        let bytes = UnsafeRawBufferPointer(start: data, count: length)
        return String(decoding: bytes, as: UTF8.self)
    }
}
