import Foundation
import MSALNative

/// A minimal HTTP `CONNECT` proxy on loopback for tests: it tunnels TLS to the requested host
/// and counts the tunnels it opened.
final class ConnectProxy: Sendable {
    let port: Int
    private let listener: TCPListener
    private let state = Locked((tunnels: [String](), sockets: [TCPSocket]()))

    /// The `host:port` targets of every tunnel opened so far.
    var tunnels: [String] { state.withLock { $0.tunnels } }

    init() throws {
        listener = try TCPListener(host: "127.0.0.1", port: 0)
        port = listener.port
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    func stop() {
        listener.shutdown()
        let sockets = state.withLock { $0.sockets }
        for socket in sockets { socket.shutdown() }
    }

    private func acceptLoop() {
        while let client = try? listener.accept() {
            state.withLock { $0.sockets.append(client) }
            let thread = Thread { [self] in serve(client) }
            thread.start()
        }
    }

    private func serve(_ client: TCPSocket) {
        var head: [UInt8] = []
        while !head.ends(with: Array("\r\n\r\n".utf8)) {
            guard let chunk = try? client.receive(maximumCount: 1), !chunk.isEmpty, head.count < 8192 else {
                client.close()
                return
            }
            head += chunk
        }
        let requestLine = String(decoding: head, as: UTF8.self).split(separator: "\r\n").first ?? ""
        let parts = requestLine.split(separator: " ")
        guard parts.count == 3, parts[0] == "CONNECT", let colon = parts[1].lastIndex(of: ":"),
            let port = Int(parts[1][parts[1].index(after: colon)...])
        else {
            try? client.send(Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8))
            client.close()
            return
        }
        let host = String(parts[1][..<colon])
        guard let upstream = try? TCPSocket.connect(host: host, port: port) else {
            try? client.send(Array("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n".utf8))
            client.close()
            return
        }
        state.withLock {
            $0.tunnels.append("\(host):\(port)")
            $0.sockets.append(upstream)
        }
        try? client.send(Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8))
        let pump = Thread { Self.pump(from: upstream, to: client) }
        pump.start()
        Self.pump(from: client, to: upstream)
    }

    private static func pump(from source: TCPSocket, to destination: TCPSocket) {
        while let bytes = try? source.receive(), !bytes.isEmpty {
            guard (try? destination.send(bytes)) != nil else { break }
        }
        destination.shutdown()
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
