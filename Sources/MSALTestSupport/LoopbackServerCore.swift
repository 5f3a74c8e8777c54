import Dispatch
import Foundation
internal import MSALNative
internal import MSALTestSupportNative

/// The running part of a ``LoopbackHTTPSServer`` or ``LoopbackHTTPServer``: the accept thread, one
/// thread per connection, the counters, and the stop sequence. Threads retain the core, never the public server, so
/// releasing the server runs its `deinit` (which stops the core).
final class LoopbackServerCore: Sendable {
    let listener: TCPListener
    /// The server's TLS context, or `nil` for plain HTTP.
    let tls: TLSContext?
    let handler: @Sendable (HTTPServerRequest) -> HTTPServerAction
    private let state = Locked(State())
    /// Entered by the accept thread and each connection thread; `stop()` waits for it.
    private let threads = DispatchGroup()

    /// How long `stop()` waits for threads (a handler stuck in its own code is not interrupted).
    static let stopTimeout: Double = 5
    /// Stack size of connection threads (OpenSSL and the parser need little).
    static let threadStackSize = 1 << 20

    private struct State {
        var stopped = false
        var acceptedConnections = 0
        var requestCount = 0
        var openSockets: [Int: TCPSocket] = [:]
    }

    init(listener: TCPListener, tls: TLSContext?, handler: @escaping @Sendable (HTTPServerRequest) -> HTTPServerAction)
    {
        self.listener = listener
        self.tls = tls
        self.handler = handler
    }

    var acceptedConnections: Int { state.withLock { $0.acceptedConnections } }
    var requestCount: Int { state.withLock { $0.requestCount } }
    var isStopped: Bool { state.withLock { $0.stopped } }

    /// Starts the accept thread.
    func start() {
        threads.enter()
        let thread = Thread { [self] in
            acceptLoop()
            listener.close()
            threads.leave()
        }
        thread.name = "\(serverName) accept :\(listener.port)"
        thread.start()
    }

    /// Stops accepting, wakes every connection thread (blocked reads, writes and handshakes
    /// return once their sockets are shut down) and waits for all threads to end. Idempotent.
    func stop() {
        let sockets: [TCPSocket]? = state.withLock { state in
            guard !state.stopped else { return nil }
            state.stopped = true
            return Array(state.openSockets.values)
        }
        guard let sockets else { return }
        listener.shutdown()
        for socket in sockets {
            socket.shutdown()
        }
        _ = threads.wait(timeout: .now() + Self.stopTimeout)
        listener.close()
    }

    /// Counts a request about to be handed to the handler.
    func countRequest() {
        state.withLock { $0.requestCount += 1 }
    }

    /// Sleeps up to `seconds`; returns false (early) if the server stops meanwhile.
    func sleepUnlessStopped(_ seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(max(0, seconds))
        while true {
            if isStopped { return false }
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return true }
            Thread.sleep(forTimeInterval: min(remaining, 0.01))
        }
    }

    private var serverName: String { tls == nil ? "LoopbackHTTPServer" : "LoopbackHTTPSServer" }

    private func acceptLoop() {
        while true {
            let socket: TCPSocket?
            do {
                socket = try listener.accept()
            } catch {
                // Out of descriptors or memory: pause so the connections in progress can finish.
                if isStopped { return }
                Thread.sleep(forTimeInterval: 0.01)
                continue
            }
            guard let socket else { return }
            let number: Int? = state.withLock { state in
                guard !state.stopped else { return nil }
                state.acceptedConnections += 1
                state.openSockets[state.acceptedConnections] = socket
                threads.enter()
                return state.acceptedConnections
            }
            guard let number else {
                socket.close()
                return
            }
            let thread = Thread { [self] in
                serve(socket, number: number)
            }
            thread.stackSize = Self.threadStackSize
            thread.name = "\(serverName) connection \(number)"
            thread.start()
        }
    }

    private func serve(_ socket: TCPSocket, number: Int) {
        defer {
            _ = state.withLock { $0.openSockets.removeValue(forKey: number) }
            socket.close()
            threads.leave()
        }
        guard let tls else {
            return HTTPServerConnection(connection: PlainServerStream(socket), number: number, core: self).run()
        }
        // A client that rejects the certificate, or never sends a ClientHello, ends here.
        guard let connection = try? TLSConnection.accept(socket, context: tls) else { return }
        HTTPServerConnection(connection: connection, number: number, core: self).run()
    }
}
