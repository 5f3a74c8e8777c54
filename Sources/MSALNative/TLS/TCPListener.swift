internal import Glibc

/// A listening TCP socket on a numeric IPv4 or IPv6 address (blocking `accept`).
///
/// One thread calls ``accept()`` in a loop; ``shutdown()`` from another thread makes the blocked
/// `accept` return `nil`, and the accepting thread then calls ``close()``.
package final class TCPListener: Sendable {
    /// The port the socket is bound to (the ephemeral port the system chose when asked for 0).
    package let port: Int
    private let descriptor: Int32
    private let state = Locked(State.listening)

    private enum State {
        case listening
        case shutDown
        case closed
    }

    /// Binds and listens (`SO_REUSEADDR`; IPv6 sockets are IPv6 only).
    ///
    /// - Parameters:
    ///   - host: a numeric IPv4 or IPv6 address, or `localhost` (127.0.0.1).
    ///   - port: the port, or 0 for an ephemeral one.
    ///   - backlog: the queue of connections not yet accepted.
    package init(host: String, port: Int, backlog: Int32 = 1024) throws(NativeError) {
        var address = try SocketAddress(host: host, port: port)
        let descriptor = Glibc.socket(address.family, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SocketAddress.systemError("socket") }
        var one: Int32 = 1
        let size = socklen_t(MemoryLayout<Int32>.size)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, size)
        if address.family == AF_INET6 {
            _ = setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, size)
        }
        guard address.withSockAddr({ Glibc.bind(descriptor, $0, $1) }) == 0 else {
            let error = SocketAddress.systemError("bind(\(host):\(port))")
            Glibc.close(descriptor)
            throw error
        }
        guard listen(descriptor, backlog) == 0 else {
            let error = SocketAddress.systemError("listen")
            Glibc.close(descriptor)
            throw error
        }
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutableBytes(of: &address.storage) { raw in
            getsockname(descriptor, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), &length)
        }
        guard named == 0 else {
            let error = SocketAddress.systemError("getsockname")
            Glibc.close(descriptor)
            throw error
        }
        address.length = length
        self.descriptor = descriptor
        self.port = address.port
    }

    deinit {
        close()
    }

    /// Waits for the next connection. Returns `nil` once ``shutdown()`` was called.
    ///
    /// - Throws: ``NativeError`` for failures worth retrying after a pause (out of descriptors
    ///   or memory); aborted handshakes and interruptions are retried here.
    package func accept() throws(NativeError) -> TCPSocket? {
        while true {
            let accepted = Glibc.accept(descriptor, nil, nil)
            let code = errno
            if accepted >= 0 {
                // Not inherited by child processes (tests spawn curl); accept4 needs _GNU_SOURCE.
                _ = fcntl(accepted, F_SETFD, FD_CLOEXEC)
            }
            if state.withLock({ $0 }) != .listening {
                if accepted >= 0 { Glibc.close(accepted) }
                return nil
            }
            if accepted >= 0 { return TCPSocket(descriptor: accepted) }
            switch code {
            case EINTR, ECONNABORTED, EPROTO: continue
            default: throw SocketAddress.systemError("accept", code)
            }
        }
    }

    /// Stops accepting: a blocked ``accept()`` returns `nil`. Safe from any thread.
    package func shutdown() {
        state.withLock { state in
            if state == .listening {
                state = .shutDown
                _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
            }
        }
    }

    /// Closes the socket (once): new connections to the port are refused from now on.
    package func close() {
        state.withLock { state in
            if state != .closed {
                state = .closed
                _ = Glibc.close(descriptor)
            }
        }
    }
}
