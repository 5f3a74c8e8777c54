internal import CMSALOpenSSL

/// An OpenSSL `SSL_CTX`: the configuration shared by the TLS connections of one server or client.
///
/// TLS 1.2 is the minimum; a peer that closes without `close_notify` is an end of stream, and
/// renegotiation is refused. Make one per server (or client) and share it between threads.
package final class TLSContext: @unchecked Sendable {
    // @unchecked: the SSL_CTX is configured completely in the factory methods and never changed
    // afterwards; OpenSSL allows SSL_new on a shared, configured SSL_CTX from several threads.

    let pointer: OpaquePointer
    /// Whether connections made from this context verify the peer (clients).
    let verifiesPeer: Bool

    private init(method: OpaquePointer?, verifiesPeer: Bool) throws(NativeError) {
        guard let context = SSL_CTX_new(method) else { throw NativeError.openSSL("SSL_CTX_new") }
        self.pointer = context
        self.verifiesPeer = verifiesPeer
        guard cmsal_ssl_ctx_set_min_tls12(context) == 1 else {
            throw NativeError.openSSL("SSL_CTX_set_min_proto_version")
        }
        cmsal_ssl_ctx_set_common_options(context)
    }

    deinit {
        SSL_CTX_free(pointer)
    }

    /// A server context presenting `certificate` (followed by `chain`) with the private key of
    /// `privateKeyPEM` (PKCS#8, `-----BEGIN PRIVATE KEY-----`).
    ///
    /// - Throws: ``NativeError`` when the key cannot be read, does not match the certificate, or
    ///   OpenSSL fails.
    package static func server(
        certificate: X509Certificate,
        privateKeyPEM: String,
        chain: [X509Certificate] = []
    ) throws(NativeError) -> TLSContext {
        var pem = Array(privateKeyPEM.utf8)
        defer { _ = pem.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        let read: OpaquePointer? = pem.withUnsafeMutableBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let key = read else { throw NativeError.openSSL("PEM_read_bio_PrivateKey") }
        defer { EVP_PKEY_free(key) }  // the context holds its own reference
        let context = try TLSContext(method: TLS_server_method(), verifiesPeer: false)
        guard SSL_CTX_use_certificate(context.pointer, certificate.pointer) == 1 else {
            throw NativeError.openSSL("SSL_CTX_use_certificate")
        }
        for intermediate in chain {
            guard SSL_CTX_add1_chain_cert(context.pointer, intermediate.pointer) == 1 else {
                throw NativeError.openSSL("SSL_CTX_add1_chain_cert")
            }
        }
        guard SSL_CTX_use_PrivateKey(context.pointer, key) == 1 else {
            throw NativeError.openSSL("SSL_CTX_use_PrivateKey")
        }
        guard SSL_CTX_check_private_key(context.pointer) == 1 else {
            throw NativeError.openSSL("SSL_CTX_check_private_key")
        }
        return context
    }

    /// A client context that trusts exactly `roots` and verifies the server's certificate and
    /// host name (see ``TLSConnection/connect(_:context:serverName:)``).
    package static func client(trusting roots: [X509Certificate]) throws(NativeError) -> TLSContext {
        let context = try TLSContext(method: TLS_client_method(), verifiesPeer: true)
        guard let store = SSL_CTX_get_cert_store(context.pointer) else {
            throw NativeError.openSSL("SSL_CTX_get_cert_store")
        }
        for root in roots {
            guard X509_STORE_add_cert(store, root.pointer) == 1 else {
                throw NativeError.openSSL("X509_STORE_add_cert")
            }
        }
        SSL_CTX_set_verify(context.pointer, SSL_VERIFY_PEER, nil)
        return context
    }
}

/// Wraps the SSL_CTX_add1_chain_cert macro's function form.
private func SSL_CTX_add1_chain_cert(_ context: OpaquePointer, _ certificate: OpaquePointer) -> Int {
    SSL_CTX_ctrl(context, SSL_CTRL_CHAIN_CERT, 1, UnsafeMutableRawPointer(certificate))
}
