package import MSALNative

extension TLSContext {
    /// A server context presenting `certificate` (followed by `chain`) with `key`.
    ///
    /// - Throws: ``NativeError`` when the key does not match the certificate or OpenSSL fails.
    package static func server(
        certificate: X509Certificate,
        key: PrivateKey,
        chain: [X509Certificate] = []
    ) throws(NativeError) -> TLSContext {
        try server(certificate: certificate, privateKeyPEM: key.privateKeyPEM(), chain: chain)
    }
}
