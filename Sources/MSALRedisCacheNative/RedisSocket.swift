internal import Glibc
import MSALNative

/// One connection to a Redis server, plain TCP or TLS, where every operation has a deadline:
/// connecting (non-blocking `connect` and `poll`), the TLS handshake, sending and receiving
/// (`poll` for plain TCP; `SO_SNDTIMEO`/`SO_RCVTIMEO` set to the time left for TLS). A server
/// that accepts and never answers therefore gives ``RedisNativeError/Kind/timedOut``, never a hang.
///
/// Used by one thread at a time.
final class RedisSocket {
    private let socket: TCPSocket
    private let tls: TLSConnection?

    /// Connects to `host` (a name, or a numeric IPv4 or IPv6 address) and `port`, with TLS when
    /// `tls` is given, before `deadline` (``RedisClock``).
    init(host: String, port: Int, tls: TLSContext?, serverName: String, deadline: Double) throws(RedisNativeError) {
        _ = ignoreSIGPIPE
        let descriptor = try Self.connect(host: host, port: port, deadline: deadline)
        socket = TCPSocket(descriptor: descriptor)
        guard let tls else {
            self.tls = nil
            return
        }
        try Self.setTimeouts(descriptor, left: deadline - RedisClock.now())
        do {
            self.tls = try TLSConnection.connect(socket, context: tls, serverName: serverName)
        } catch {
            if RedisClock.now() >= deadline || error.reason.contains("timed out") {
                throw RedisNativeError(.timedOut, "timed out during the TLS handshake with \(host):\(port)")
            }
            throw RedisNativeError(.tlsFailed, "TLS handshake with \(host):\(port) failed: \(error.reason)")
        }
    }

    deinit {
        tls?.shutdown()
        socket.close()
    }

    /// Sends all of `bytes` before `deadline`.
    func send(_ bytes: [UInt8], deadline: Double) throws(RedisNativeError) {
        if let tls {
            try Self.setTimeouts(socket.descriptor, left: deadline - RedisClock.now())
            do {
                try tls.write(bytes)
            } catch {
                throw Self.ioFailure(error, deadline: deadline, sending: true)
            }
            return
        }
        var offset = 0
        while offset < bytes.count {
            try waitUntilReady(events: Int16(POLLOUT), deadline: deadline, sending: true)
            let sent = bytes.withUnsafeBytes { buffer in
                Glibc.send(
                    socket.descriptor, buffer.baseAddress! + offset, buffer.count - offset,
                    Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
            if sent < 0 {
                let code = errno
                if code == EINTR || code == EAGAIN || code == EWOULDBLOCK { continue }
                throw RedisNativeError(
                    .connectionLost, "the connection to Redis broke while sending (\(Self.text(code)))")
            }
            offset += sent
        }
    }

    /// Receives some bytes before `deadline`; throws ``RedisNativeError/Kind/connectionLost`` at
    /// the end of the stream.
    func receive(deadline: Double) throws(RedisNativeError) -> [UInt8] {
        if let tls {
            try Self.setTimeouts(socket.descriptor, left: deadline - RedisClock.now())
            let bytes: [UInt8]
            do {
                bytes = try tls.read(maximumCount: 65536)
            } catch {
                throw Self.ioFailure(error, deadline: deadline, sending: false)
            }
            guard !bytes.isEmpty else {
                throw RedisNativeError(.connectionLost, "the Redis server closed the connection")
            }
            return bytes
        }
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            try waitUntilReady(events: Int16(POLLIN), deadline: deadline, sending: false)
            let received = buffer.withUnsafeMutableBytes {
                Glibc.recv(socket.descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if received > 0 { return Array(buffer.prefix(received)) }
            if received == 0 { throw RedisNativeError(.connectionLost, "the Redis server closed the connection") }
            let code = errno
            if code == EINTR || code == EAGAIN || code == EWOULDBLOCK { continue }
            throw RedisNativeError(
                .connectionLost, "the connection to Redis broke while receiving (\(Self.text(code)))")
        }
    }

    private func waitUntilReady(events: Int16, deadline: Double, sending: Bool) throws(RedisNativeError) {
        while true {
            let left = deadline - RedisClock.now()
            guard left > 0 else {
                throw RedisNativeError(
                    .timedOut, sending ? "timed out sending to Redis" : "timed out waiting for Redis to reply")
            }
            var entry = pollfd(fd: socket.descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32(min(left, 86_400) * 1000) + 1)
            if ready > 0 { return }
            if ready < 0 && errno != EINTR {
                throw RedisNativeError(.connectionLost, "poll failed (\(Self.text(errno)))")
            }
        }
    }

    private static func ioFailure(_ error: NativeError, deadline: Double, sending: Bool) -> RedisNativeError {
        if RedisClock.now() >= deadline - 0.001 || error.reason.contains("timed out") {
            return RedisNativeError(
                .timedOut, sending ? "timed out sending to Redis" : "timed out waiting for Redis to reply")
        }
        return RedisNativeError(.connectionLost, "the TLS connection to Redis broke: \(error.reason)")
    }

    /// `SO_SNDTIMEO` and `SO_RCVTIMEO` to the time left (at least a millisecond: 0 would mean forever).
    private static func setTimeouts(_ descriptor: Int32, left: Double) throws(RedisNativeError) {
        guard left > 0 else { throw RedisNativeError(.timedOut, "timed out talking to Redis") }
        let seconds = max(0.001, left)
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1_000_000))
        let size = socklen_t(MemoryLayout<timeval>.size)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, size)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &value, size)
    }

    /// A connected, blocking descriptor: each address of `host` in turn (``RedisResolver``), each
    /// connect bounded by `deadline`.
    private static func connect(host: String, port: Int, deadline: Double) throws(RedisNativeError) -> Int32 {
        var lastError = "no address"
        for address in try RedisResolver.resolve(host: host, port: port, deadline: deadline) {
            let descriptor = Glibc.socket(
                address.family, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue),
                address.protocolNumber)
            guard descriptor >= 0 else {
                lastError = text(errno)
                continue
            }
            var connected =
                address.socketAddress.withUnsafeBytes { bytes in
                    Glibc.connect(
                        descriptor, bytes.baseAddress?.assumingMemoryBound(to: sockaddr.self),
                        socklen_t(bytes.count))
                } == 0
            if !connected && errno == EINPROGRESS {
                while true {
                    let left = deadline - RedisClock.now()
                    guard left > 0 else {
                        Glibc.close(descriptor)
                        throw RedisNativeError(.timedOut, "timed out connecting to Redis at \(host):\(port)")
                    }
                    var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    let ready = poll(&poller, 1, Int32(min(left, 86_400) * 1000) + 1)
                    if ready < 0 && errno == EINTR { continue }
                    if ready <= 0 { continue }
                    var failure: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    _ = getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length)
                    connected = failure == 0
                    if !connected { lastError = text(failure) }
                    break
                }
            } else if !connected {
                lastError = text(errno)
            }
            guard connected else {
                Glibc.close(descriptor)
                continue
            }
            // Blocking from here on: TLS reads and writes are bounded by SO_RCVTIMEO/SO_SNDTIMEO,
            // plain ones by poll.
            let flags = fcntl(descriptor, F_GETFL)
            _ = fcntl(descriptor, F_SETFL, flags & ~Int32(O_NONBLOCK))
            return descriptor
        }
        throw RedisNativeError(.connectFailed, "cannot connect to Redis at \(host):\(port) (\(lastError))")
    }

    private static func text(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

@available(*, unavailable)
extension RedisSocket: Sendable {}

/// The monotonic clock in seconds, for deadlines that wall-clock changes cannot move.
package enum RedisClock {
    /// Seconds since an arbitrary start.
    package static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000
    }
}

/// Ignores SIGPIPE once for the process (a write to a closed TLS connection must fail, not kill).
private let ignoreSIGPIPE: Void = {
    _ = signal(SIGPIPE, SIG_IGN)
}()
