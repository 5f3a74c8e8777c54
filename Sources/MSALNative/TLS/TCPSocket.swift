internal import Glibc

/// A connected TCP socket (blocking). Owns its file descriptor.
///
/// One thread reads and writes it; ``shutdown()`` may be called from any thread to wake that
/// thread (its blocked `recv`/`send` return), which is how servers stop promptly. The descriptor
/// is closed once, by ``close()`` or `deinit`, never while another thread may still shut it down.
package final class TCPSocket: Sendable {
    /// The file descriptor. Valid until ``close()``.
    package let descriptor: Int32
    private let isClosed = Locked(false)

    /// Takes ownership of a connected socket descriptor.
    package init(descriptor: Int32) {
        self.descriptor = descriptor
        var one: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit {
        close()
    }

    /// Connects to a numeric IPv4 or IPv6 address (or `localhost`), blocking.
    package static func connect(host: String, port: Int) throws(NativeError) -> TCPSocket {
        let address = try SocketAddress(host: host, port: port)
        let descriptor = Glibc.socket(address.family, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SocketAddress.systemError("socket") }
        let socket = TCPSocket(descriptor: descriptor)
        while true {
            let result = address.withSockAddr { Glibc.connect(descriptor, $0, $1) }
            if result == 0 { return socket }
            if errno != EINTR { throw SocketAddress.systemError("connect") }
        }
    }

    /// Sends all of `bytes` (never raises SIGPIPE).
    package func send(_ bytes: [UInt8]) throws(NativeError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { buffer in
                Glibc.send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                throw SocketAddress.systemError("send")
            }
            offset += sent
        }
    }

    /// Receives up to `maximumCount` bytes; empty at the end of the stream.
    package func receive(maximumCount: Int = 16384) throws(NativeError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: max(1, maximumCount))
        while true {
            let received = buffer.withUnsafeMutableBytes { Glibc.recv(descriptor, $0.baseAddress, $0.count, 0) }
            if received >= 0 { return Array(buffer.prefix(received)) }
            if errno != EINTR { throw SocketAddress.systemError("recv") }
        }
    }

    /// Receives up to `maximumCount` bytes, waiting at most `timeout` seconds for them (`poll`,
    /// then a non-blocking `recv`): `nil` when nothing arrived in time, empty at the end of the
    /// stream. A connection that is shut down (``shutdown()``) reads as the end of the stream.
    package func receive(maximumCount: Int, timeout: Double) throws(NativeError) -> [UInt8]? {
        let deadline = monotonicSeconds() + max(0, timeout)
        var buffer = [UInt8](repeating: 0, count: max(1, maximumCount))
        while true {
            let left = deadline - monotonicSeconds()
            guard left > 0 else { return nil }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(min(left, 86_400) * 1000) + 1)
            if ready == 0 { continue }
            if ready < 0 {
                if errno == EINTR { continue }
                throw SocketAddress.systemError("poll")
            }
            let received = buffer.withUnsafeMutableBytes {
                Glibc.recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if received >= 0 { return Array(buffer.prefix(received)) }
            // EAGAIN: woken without data; wait again for the time left.
            if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
            throw SocketAddress.systemError("recv")
        }
    }

    /// Seconds on the monotonic clock (for deadlines that wall-clock changes cannot move).
    private func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1_000_000_000
    }

    /// Sets how long a blocking receive waits before failing (`SO_RCVTIMEO`); 0 waits forever.
    package func setReceiveTimeout(seconds: Double) {
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1_000_000))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Shuts both directions down, waking any thread blocked on the socket. Safe from any thread;
    /// does nothing once the socket is closed.
    package func shutdown() {
        isClosed.withLock { closed in
            if !closed { _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    /// Closes the descriptor (once).
    package func close() {
        isClosed.withLock { closed in
            if !closed {
                closed = true
                _ = Glibc.close(descriptor)
            }
        }
    }
}
