public import Foundation
internal import MSALNative

/// A plain-HTTP server (no TLS) on a loopback address, for tests: what a client must never send
/// a credential to, or a listener that records what reached it. Real TCP, HTTP/1.1 with
/// keep-alive, and the same handler and actions as ``LoopbackHTTPSServer``.
///
/// ```swift
/// let seen = Locked<[HTTPServerRequest]>([])  // any lock will do
/// let listener = try LoopbackHTTPServer { request in
///     seen.withLock { $0.append(request) }
///     return .respond(.text(status: 404, "nothing here"))
/// }
/// defer { listener.stop() }
/// // listener.baseURL is http://127.0.0.1:<port>; listener.acceptedConnections counts every
/// // TCP connection, even one that never sent a complete request.
/// ```
///
/// The handler runs on the connection's own thread and sees each request's method, target,
/// headers and body. Malformed requests get `400`, heads over 64 KiB `431`, bodies over 16 MiB
/// `413`, and the connection is closed.
public final class LoopbackHTTPServer: Sendable {
    /// The port the server listens on (the ephemeral port chosen when 0 was asked for).
    public let port: Int
    /// The address the server listens on, as given (`127.0.0.1`, `::1`, `localhost`).
    public let host: String
    /// `http://<host>:<port>` (an IPv6 host in brackets), without a trailing slash.
    public let baseURL: URL

    private let core: LoopbackServerCore

    /// Binds the port and starts serving.
    ///
    /// - Parameters:
    ///   - host: a numeric IPv4 or IPv6 loopback address, or `localhost` (bound as 127.0.0.1).
    ///   - port: the port, or 0 for a free ephemeral port (see ``port``).
    ///   - handler: decides the action for each request. Called on connection threads.
    /// - Throws: ``TestSupportError`` when the address is not numeric or the port cannot be bound.
    public init(
        host: String = "127.0.0.1",
        port: Int = 0,
        handler: @escaping @Sendable (HTTPServerRequest) -> HTTPServerAction
    ) throws {
        let listener: TCPListener
        do {
            listener = try TCPListener(host: host, port: port)
        } catch {
            throw TestSupportError("cannot start the loopback HTTP server on \(host):\(port): \(error)")
        }
        let urlHost = host.contains(":") ? "[\(host)]" : host
        guard let url = URL(string: "http://\(urlHost):\(listener.port)") else {
            throw TestSupportError("cannot make a URL for host \(host)")
        }
        self.host = host
        self.port = listener.port
        self.baseURL = url
        self.core = LoopbackServerCore(listener: listener, tls: nil, handler: handler)
        core.start()
    }

    deinit {
        core.stop()
    }

    /// The number of TCP connections accepted so far, complete request or not (keep-alive reuse
    /// keeps it low). Zero proves that nothing reached the server.
    public var acceptedConnections: Int { core.acceptedConnections }

    /// The number of complete requests handed to the handler so far.
    public var requestCount: Int { core.requestCount }

    /// Stops the server: the port stops accepting, open and idle connections are closed, delayed
    /// and endless responses are abandoned, and every server thread has ended when it returns.
    /// Idempotent; also done when the server is released. Do not call it from the handler.
    public func stop() {
        core.stop()
    }
}
