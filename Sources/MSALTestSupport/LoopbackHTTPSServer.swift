public import Foundation
internal import MSALNative
internal import MSALTestSupportNative

/// An HTTPS server on a loopback address, for tests: real TCP, real TLS (OpenSSL), HTTP/1.1 with
/// keep-alive, and a handler that decides what each request gets.
///
/// ```swift
/// let server = try LoopbackHTTPSServer { request in
///     request.path == "/hello" ? .respond(.text("hi")) : .respond(.text(status: 404, "no route"))
/// }
/// defer { server.stop() }
/// // Trust server.certificateAuthority.certificateFile and call server.baseURL.
/// ```
///
/// The handler runs on the connection's own thread (one per TCP connection; never Swift's
/// cooperative pool), so it may block; requests of one connection are handled in order, requests
/// of different connections concurrently. Its ``HTTPServerAction`` can also delay, drop or
/// corrupt the answer to test a client's error handling.
///
/// Requests with a malformed request line or headers get `400` and the connection is closed;
/// heads over 64 KiB get `431`, bodies over 16 MiB `413`. Several servers can run in one
/// process. The first TLS connection makes the process ignore `SIGPIPE`, so a client that
/// disconnects early cannot kill it.
public final class LoopbackHTTPSServer: Sendable {
    /// The port the server listens on (the ephemeral port chosen when 0 was asked for).
    public let port: Int
    /// The address the server listens on, as given (`127.0.0.1`, `::1`, `localhost`).
    public let host: String
    /// `https://<host>:<port>` (an IPv6 host in brackets), without a trailing slash.
    public let baseURL: URL
    /// The authority that issued the server's certificate: clients must trust it, for example
    /// through its ``TestCertificateAuthority/certificateFile`` (curl's `CAINFO`).
    public let certificateAuthority: TestCertificateAuthority
    /// The certificate the server presents.
    public let certificate: TestServerCertificate

    private let core: LoopbackServerCore

    /// Binds the port and starts serving.
    ///
    /// - Parameters:
    ///   - host: a numeric IPv4 or IPv6 loopback address, or `localhost` (bound as 127.0.0.1).
    ///   - port: the port, or 0 for a free ephemeral port (see ``port``).
    ///   - certificateAuthority: the authority that issues the server's certificate when
    ///     `certificate` is `nil` (a new one when both are `nil`).
    ///   - certificate: the certificate to present, for example one for other host names or an
    ///     expired one; ``certificateAuthority`` is then its issuer. When `nil`, a certificate for
    ///     `localhost`, `127.0.0.1`, `::1` and `host` is issued.
    ///   - handler: decides the action for each request. Called on connection threads.
    /// - Throws: ``TestSupportError`` when the address is not numeric, the port cannot be bound,
    ///   or the certificate cannot be made.
    public init(
        host: String = "127.0.0.1",
        port: Int = 0,
        certificateAuthority: TestCertificateAuthority? = nil,
        certificate: TestServerCertificate? = nil,
        handler: @escaping @Sendable (HTTPServerRequest) -> HTTPServerAction
    ) throws {
        let served = try certificate ?? Self.defaultCertificate(for: host, from: certificateAuthority)
        let listener: TCPListener
        let tls: TLSContext
        do {
            tls = try TLSContext.server(certificate: served.certificate, key: served.key)
            listener = try TCPListener(host: host, port: port)
        } catch {
            throw TestSupportError("cannot start the loopback HTTPS server on \(host):\(port): \(error)")
        }
        let urlHost = host.contains(":") ? "[\(host)]" : host
        guard let url = URL(string: "https://\(urlHost):\(listener.port)") else {
            throw TestSupportError("cannot make a URL for host \(host)")
        }
        self.host = host
        self.port = listener.port
        self.baseURL = url
        self.certificate = served
        self.certificateAuthority = served.issuer
        ownsAuthority = certificate == nil && certificateAuthority == nil
        self.core = LoopbackServerCore(listener: listener, tls: tls, handler: handler)
        core.start()
    }

    /// Whether ``certificateAuthority`` was made by this server (none was given).
    private let ownsAuthority: Bool

    deinit {
        core.stop()
    }

    /// The number of TCP connections accepted so far (keep-alive reuse keeps it low).
    public var acceptedConnections: Int { core.acceptedConnections }

    /// The number of complete requests handed to the handler so far.
    public var requestCount: Int { core.requestCount }

    /// Stops the server: the port stops accepting, open and idle connections are closed, delayed
    /// responses are abandoned, and every server thread has ended when it returns (normally in a
    /// few milliseconds; a handler that blocks in its own code is waited for up to 5 seconds).
    /// Idempotent; also done when the server is released. Do not call it from the handler.
    ///
    /// When the server made its own certificate authority, its certificate file (and folder under
    /// the temporary directory) is removed too: nothing the server made outlives `stop()`.
    public func stop() {
        core.stop()
        if ownsAuthority { certificateAuthority.removeCertificateFile() }
    }

    private static func defaultCertificate(
        for host: String,
        from authority: TestCertificateAuthority?
    ) throws -> TestServerCertificate {
        var dnsNames = ["localhost"]
        var ipAddresses = ["127.0.0.1", "::1"]
        if X509Certificate.isIPAddress(host) {
            if !ipAddresses.contains(host) { ipAddresses.append(host) }
        } else if !dnsNames.contains(host) {
            dnsNames.append(host)
        }
        return try (authority ?? TestCertificateAuthority()).issueCertificate(
            dnsNames: dnsNames,
            ipAddresses: ipAddresses
        )
    }
}
