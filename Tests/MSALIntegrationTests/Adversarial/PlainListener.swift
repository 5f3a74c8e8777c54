import Foundation
import MSALNative

/// A plain TCP listener on loopback that answers nothing and records everything: where a
/// hostile document points the library, to prove that not one byte (a refresh token, a code)
/// was sent there.
final class PlainListener: Sendable {
    let port: Int
    private let listener: TCPListener
    private let state = Locked((connections: 0, received: [UInt8](), sockets: [TCPSocket]()))

    /// `http://127.0.0.1:<port>`.
    var baseURL: String { "http://127.0.0.1:\(port)" }
    /// How many TCP connections were accepted.
    var connections: Int { state.withLock { $0.connections } }
    /// Every byte received on any connection, as text.
    var received: String { String(decoding: state.withLock { $0.received }, as: UTF8.self) }

    init() throws {
        listener = try TCPListener(host: "127.0.0.1", port: 0)
        port = listener.port
        Thread { [self] in acceptLoop() }.start()
    }

    func stop() {
        listener.shutdown()
        for socket in state.withLock({ $0.sockets }) { socket.shutdown() }
    }

    private func acceptLoop() {
        while let client = try? listener.accept() {
            state.withLock {
                $0.connections += 1
                $0.sockets.append(client)
            }
            Thread { [self] in
                // Read for a short while, then hang up: a client waiting for an answer fails.
                client.setReceiveTimeout(seconds: 0.5)
                while let bytes = try? client.receive(), !bytes.isEmpty {
                    state.withLock { $0.received += bytes }
                }
                client.close()
            }.start()
        }
    }
}
