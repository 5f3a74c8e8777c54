internal import CMSALOpenSSL
internal import Glibc

/// One TLS connection over a connected ``TCPSocket``, with blocking reads and writes.
///
/// Used by a single thread (not `Sendable`); another thread stops it by calling
/// ``TCPSocket/shutdown()`` on ``socket``. The socket stays owned by the caller: freeing the
/// connection does not close it.
///
/// The first connection ignores `SIGPIPE` for the whole process (OpenSSL writes with `write(2)`),
/// so a peer that disconnects makes a write fail instead of killing the process.
package final class TLSConnection {
    /// The TCP connection underneath.
    package let socket: TCPSocket
    private let ssl: OpaquePointer

    private init(context: TLSContext, socket: TCPSocket) throws(NativeError) {
        _ = ignoreSIGPIPE
        guard let ssl = SSL_new(context.pointer) else { throw NativeError.openSSL("SSL_new") }
        self.ssl = ssl
        self.socket = socket
        guard SSL_set_fd(ssl, socket.descriptor) == 1 else { throw NativeError.openSSL("SSL_set_fd") }
    }

    deinit {
        SSL_free(ssl)
    }

    /// Performs the server side of the handshake on an accepted socket.
    package static func accept(_ socket: TCPSocket, context: TLSContext) throws(NativeError) -> TLSConnection {
        let connection = try TLSConnection(context: context, socket: socket)
        ERR_clear_error()
        let result = SSL_accept(connection.ssl)
        guard result == 1 else { throw connection.failure("SSL_accept", result) }
        return connection
    }

    /// Performs the client side of the handshake, verifying that the server's certificate chains
    /// to the context's roots and is valid for `serverName` (a DNS name or an IP address).
    package static func connect(
        _ socket: TCPSocket,
        context: TLSContext,
        serverName: String
    ) throws(NativeError) -> TLSConnection {
        let connection = try TLSConnection(context: context, socket: socket)
        let ssl = connection.ssl
        if X509Certificate.isIPAddress(serverName) {
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), serverName) == 1 else {
                throw NativeError.openSSL("X509_VERIFY_PARAM_set1_ip_asc")
            }
        } else {
            guard cmsal_ssl_set_server_name(ssl, serverName) == 1 else {
                throw NativeError.openSSL("SSL_set_tlsext_host_name")
            }
            guard SSL_set1_host(ssl, serverName) == 1 else { throw NativeError.openSSL("SSL_set1_host") }
        }
        ERR_clear_error()
        let result = SSL_connect(ssl)
        guard result == 1 else { throw connection.failure("SSL_connect", result) }
        return connection
    }

    /// Reads up to `maximumCount` bytes, blocking until some arrive. Empty at the end of the
    /// stream (`close_notify`, or the peer closed the TCP connection).
    package func read(maximumCount: Int = 16384) throws(NativeError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: max(1, min(maximumCount, Int(Int32.max))))
        ERR_clear_error()
        let count = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
        if count > 0 { return Array(buffer.prefix(Int(count))) }
        if SSL_get_error(ssl, count) == SSL_ERROR_ZERO_RETURN { return [] }
        throw failure("SSL_read", count)
    }

    /// Writes all of `bytes`, blocking until they are handed to the kernel.
    package func write(_ bytes: [UInt8]) throws(NativeError) {
        var offset = 0
        while offset < bytes.count {
            let chunk = min(bytes.count - offset, 1 << 20)
            ERR_clear_error()
            let written = bytes.withUnsafeBytes { SSL_write(ssl, $0.baseAddress! + offset, Int32(chunk)) }
            guard written > 0 else { throw failure("SSL_write", written) }
            offset += Int(written)
        }
    }

    /// Sends `close_notify` (best effort; does not wait for the peer's).
    package func shutdown() {
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
    }

    /// The error for a failed `SSL_*` call: OpenSSL's queue, or the system error underneath.
    private func failure(_ function: String, _ result: Int32) -> NativeError {
        let code = errno
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_SYSCALL:
            ERR_clear_error()
            if code == 0 { return NativeError(function: function, reason: "connection closed by peer") }
            return SocketAddress.systemError(function, code)
        case SSL_ERROR_ZERO_RETURN:
            return NativeError(function: function, reason: "connection closed by peer (close_notify)")
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return NativeError(function: function, reason: "timed out")
        default:
            let error = NativeError.openSSL(function)
            let verify = SSL_get_verify_result(ssl)
            guard verify != X509_V_OK else { return error }
            let verifyReason = String(cString: X509_verify_cert_error_string(verify))
            return NativeError(function: function, reason: "\(error.reason); certificate: \(verifyReason)")
        }
    }
}

@available(*, unavailable)
extension TLSConnection: Sendable {}

/// Ignores SIGPIPE once for the process (Swift initialises globals lazily and exactly once).
private let ignoreSIGPIPE: Void = {
    _ = signal(SIGPIPE, SIG_IGN)
}()
