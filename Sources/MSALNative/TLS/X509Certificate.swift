internal import CMSALOpenSSL
internal import Glibc

/// An X.509 certificate held by OpenSSL. Owns its `X509`.
///
/// Parsed from PEM: a client trusting a CA, or a certificate that `MSALTestSupportNative` issued
/// for a test server.
package final class X509Certificate: @unchecked Sendable {
    // @unchecked: the X509 is never mutated after it is built or parsed, and OpenSSL 3 allows
    // concurrent read-only use of a certificate (encoding, verification) from several threads.

    let pointer: OpaquePointer

    /// Takes ownership of an `X509` (freed in `deinit`).
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        X509_free(pointer)
    }

    /// Parses the first certificate of a PEM document (`-----BEGIN CERTIFICATE-----`).
    package convenience init(pem: String) throws(NativeError) {
        var bytes = Array(pem.utf8)
        let parsed: OpaquePointer? = bytes.withUnsafeMutableBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_X509(bio, nil, nil, nil)
        }
        guard let parsed else { throw NativeError.openSSL("PEM_read_bio_X509") }
        self.init(taking: parsed)
    }

    /// The certificate as PEM (`-----BEGIN CERTIFICATE-----`), ending with a newline.
    package func pem() throws(NativeError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw NativeError.openSSL("BIO_new") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_X509(bio, pointer) == 1 else { throw NativeError.openSSL("PEM_write_bio_X509") }
        var data: UnsafeMutablePointer<CChar>?
        let length = cmsal_bio_mem_data(bio, &data)
        guard let data, length > 0 else { throw NativeError.openSSL("PEM_write_bio_X509") }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }

    /// The certificate as DER.
    package func der() throws(NativeError) -> [UInt8] {
        try Self.encode("i2d_X509") { out in i2d_X509(pointer, out) }
    }

    /// The DER encoding of the certificate's SubjectPublicKeyInfo.
    package func subjectPublicKeyInfoDER() throws(NativeError) -> [UInt8] {
        guard let publicKey = X509_get_X509_PUBKEY(pointer) else {
            throw NativeError.openSSL("X509_get_X509_PUBKEY")
        }
        return try Self.encode("i2d_X509_PUBKEY") { out in i2d_X509_PUBKEY(publicKey, out) }
    }

    /// SHA-256 of the SubjectPublicKeyInfo DER: the certificate pin browsers accept
    /// (Chromium's `--ignore-certificate-errors-spki-list` takes it in base64).
    package func subjectPublicKeyInfoSHA256() throws(NativeError) -> [UInt8] {
        let spki = try subjectPublicKeyInfoDER()
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = spki.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &digest, &length, EVP_sha256(), nil)
        }
        guard ok == 1 else { throw NativeError.openSSL("EVP_Digest") }
        return Array(digest.prefix(Int(length)))
    }

    /// Runs an OpenSSL `i2d_*` encoder twice: once for the length, once into the buffer.
    private static func encode(
        _ function: String,
        _ encoder: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32
    ) throws(NativeError) -> [UInt8] {
        let length = Int(encoder(nil))
        guard length > 0 else { throw NativeError.openSSL(function) }
        var bytes = [UInt8](repeating: 0, count: length)
        let written = bytes.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return Int(encoder(&cursor))
        }
        guard written == length else { throw NativeError.openSSL(function) }
        return bytes
    }

    /// Whether `text` is a numeric IPv4 or IPv6 address.
    package static func isIPAddress(_ text: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, text, &buffer) == 1 || inet_pton(AF_INET6, text, &buffer) == 1
    }
}
