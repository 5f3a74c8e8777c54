import Foundation
import MSALNative

/// Receives the browser's redirect on a loopback address (RFC 8252 §7.3): plain HTTP on
/// 127.0.0.1 and, for `localhost`, also on ::1 with the same port.
///
/// - Binds when created (port 0 gives a free port, see ``port``); starts answering with
///   ``waitForRedirect(expectedState:timeout:)``.
/// - Only `GET` on the redirect URI's path counts; everything else gets 404 and the wait goes on.
///   A request on the path without the expected `state` gets an error page and is ignored, so a
///   stray or malicious local request cannot end the sign-in.
/// - The browser gets a short success or error page (no code, token or server message in it).
/// - Sockets are accepted and read on threads of their own, never on Swift's cooperative pool.
/// - Ends with the full redirect URL, or fails with ``MSALError/userCanceled`` on timeout, on
///   cancellation of the waiting task, or on ``cancel(_:)``; ``fail(_:)`` ends it with any error.
///   The sockets are closed when it ends.
final class LoopbackRedirectListener: Sendable {
    /// The port bound.
    let port: Int
    /// The redirect URI with the bound port (`http://localhost:53117/callback`).
    let redirectURI: String
    private let redirect: RedirectURI
    private let expectedPath: String
    /// `http://<host>:<port>`, the start of every redirect URL returned.
    private let origin: String
    private let listeners: [TCPListener]
    private let pages: Pages
    private let correlationId: UUID?
    private let outcome = OneShotResult<URL>()
    private let state = Locked(State())

    /// What the browser is shown.
    struct Pages: Sendable {
        var successMessage = WebviewSettings.defaultSuccessPageMessage
        var errorMessage = WebviewSettings.defaultErrorPageMessage
    }

    private struct State {
        var started = false
        var closed = false
        var expectedState: String?
        var connections: [ObjectIdentifier: TCPSocket] = [:]
        var timer: DispatchWorkItem?
    }

    /// The most connections answered at once; further ones are closed at once.
    static let maximumConnections = 32
    /// How long a connection may take to send its request head.
    static let requestTimeout: Double = 10
    /// The largest request head read.
    static let maximumHeadBytes = 16384

    /// Binds the loopback address of `redirect` (an `http` loopback redirect URI).
    ///
    /// - Throws: -50000 (with a message naming the address and what to do) when the port cannot be
    ///   bound, for example because another program uses a fixed port.
    init(redirect: RedirectURI, pages: Pages = Pages(), correlationId: UUID?) throws {
        guard case .loopback(let configuredPort) = redirect.kind else {
            throw MSALErrors.make(
                .internalErrorInvalidRedirectURI,
                "The redirect URI '\(redirect)' is not an http loopback URI, so no loopback listener can receive it. "
                    + "Use http://localhost.", ErrorDetails(correlationId: correlationId))
        }
        let primaryHost = redirect.host == "::1" ? "::1" : "127.0.0.1"
        var listeners: [TCPListener] = []
        do {
            listeners.append(try TCPListener(host: primaryHost, port: configuredPort ?? 0, backlog: 64))
        } catch {
            let shown = primaryHost.contains(":") ? "[\(primaryHost)]" : primaryHost
            let advice =
                configuredPort == nil
                ? "Check that the loopback interface is up."
                : "Another program probably uses port \(configuredPort ?? 0): close it, or register the redirect URI "
                    + "without a port (http://localhost) so a free port is chosen when the sign-in starts."
            throw MSALErrors.make(
                .internal,
                "Cannot listen on \(shown):\(configuredPort ?? 0) for the redirect URI '\(redirect)': "
                    + "\(error.reason). \(advice)",
                ErrorDetails(correlationId: correlationId))
        }
        let port = listeners[0].port
        if redirect.host == "localhost" {
            // Browsers may resolve localhost to ::1 first; listen there too when the system has IPv6.
            if let ipv6 = try? TCPListener(host: "::1", port: port, backlog: 64) {
                listeners.append(ipv6)
            } else {
                Log.verbose("The loopback listener is on 127.0.0.1:\(port) only (::1 is not available).")
            }
        }
        self.listeners = listeners
        self.port = port
        self.redirect = redirect
        self.redirectURI = redirect.with(port: port)
        let path = URLComponents(string: redirect.string)?.percentEncodedPath ?? ""
        self.expectedPath = path.isEmpty ? "/" : path
        self.origin = "http://\(redirect.host.contains(":") ? "[\(redirect.host)]" : redirect.host):\(port)"
        self.pages = pages
        self.correlationId = correlationId
    }

    deinit {
        close()
    }

    /// Starts answering and waits for the redirect.
    ///
    /// - Parameters:
    ///   - expectedState: the `state` value sent in the authorize URL (as sent); requests without
    ///     it are ignored. `nil` accepts any request on the path.
    ///   - timeout: seconds to wait for the browser.
    /// - Returns: the redirect URL (`http://localhost:<port>/<path>?code=...&state=...`).
    /// - Throws: ``MSALError/userCanceled`` on timeout or cancellation; the error given to ``fail(_:)``.
    func waitForRedirect(expectedState: String?, timeout: TimeInterval) async throws -> URL {
        start(expectedState: expectedState, timeout: timeout)
        let result = await withTaskCancellationHandler {
            await outcome.wait()
        } onCancel: {
            self.cancel("The sign-in was cancelled before the browser returned to the app.")
        }
        close()
        return try result.get()
    }

    /// Ends the wait with ``MSALError/userCanceled`` and `message`.
    func cancel(_ message: String) {
        fail(MSALErrors.make(.userCanceled, message, ErrorDetails(correlationId: correlationId)))
    }

    /// Ends the wait with `error` (for example: the browser could not be started).
    func fail(_ error: NSError) {
        if outcome.complete(.failure(error)) {
            close()
        }
    }

    /// Stops listening and closes every socket. Safe to call more than once, from any thread.
    func close() {
        let (connections, timer) = state.withLock { state -> ([TCPSocket], DispatchWorkItem?) in
            guard !state.closed else { return ([], nil) }
            state.closed = true
            defer {
                state.connections = [:]
                state.timer = nil
            }
            return (Array(state.connections.values), state.timer)
        }
        timer?.cancel()
        for listener in listeners {
            listener.shutdown()
        }
        for connection in connections {
            connection.shutdown()
        }
        if !state.withLock({ $0.started }) {
            for listener in listeners {
                listener.close()
            }
        }
    }

    // MARK: - Accepting

    private func start(expectedState: String?, timeout: TimeInterval) {
        let timer = DispatchWorkItem { [weak self] in
            self?.cancel(
                "The sign-in timed out: the browser did not return to \(self?.redirectURI ?? "the redirect URI") "
                    + "within \(Int(timeout.rounded())) seconds (MSALWebviewParameters.loopbackTimeout). The user "
                    + "probably closed the browser tab; sign in again.")
        }
        let shouldStart = state.withLock { state -> Bool in
            guard !state.started, !state.closed else { return false }
            state.started = true
            state.expectedState = expectedState
            state.timer = timer
            return true
        }
        guard shouldStart else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + max(0.001, timeout), execute: timer)
        for listener in listeners {
            let thread = Thread { [self] in acceptLoop(listener) }
            thread.name = "msal-loopback-accept"
            thread.start()
        }
    }

    private func acceptLoop(_ listener: TCPListener) {
        defer { listener.close() }
        while true {
            let socket: TCPSocket?
            do {
                socket = try listener.accept()
            } catch {
                Log.warning("The loopback listener could not accept a connection: \(error). Retrying.")
                Thread.sleep(forTimeInterval: 0.05)
                continue
            }
            guard let socket else { return }
            let admitted = state.withLock { state -> Bool in
                guard !state.closed, state.connections.count < Self.maximumConnections else { return false }
                state.connections[ObjectIdentifier(socket)] = socket
                return true
            }
            guard admitted else {
                socket.close()
                continue
            }
            let thread = Thread { [self] in
                serve(socket)
                state.withLock { _ = $0.connections.removeValue(forKey: ObjectIdentifier(socket)) }
                socket.close()
            }
            thread.name = "msal-loopback-connection"
            thread.start()
        }
    }

    // MARK: - One request

    private func serve(_ socket: TCPSocket) {
        socket.setReceiveTimeout(seconds: Self.requestTimeout)
        guard let head = readHead(socket) else { return }
        let requestLine = head.split(separator: "\r\n", maxSplits: 1).first.map(String.init) ?? ""
        let words = requestLine.split(separator: " ")
        guard words.count == 3, words[2].hasPrefix("HTTP/1.") else {
            send(socket, status: 400, reason: "Bad Request", body: nil)
            return
        }
        let method = String(words[0])
        let target = String(words[1])
        let targetPath = String(target.prefix { $0 != "?" && $0 != "#" })
        guard method == "GET", targetPath == expectedPath else {
            send(socket, status: 404, reason: "Not Found", body: nil)
            return
        }
        let query = target.firstIndex(of: "?").map { String(target[target.index(after: $0)...]) } ?? ""
        let parameters = FormURLEncoding.decode(query) ?? []
        let receivedState = parameters.first { $0.name == "state" }?.value
        let expectedState = state.withLock { $0.expectedState }
        if let expectedState {
            guard let receivedState, ConstantTime.equals(receivedState, expectedState) else {
                Log.warning(
                    "The loopback listener ignored a request without the expected state (a stale tab or another program).",
                    correlationId: correlationId)
                send(
                    socket, status: 400, reason: "Bad Request",
                    body: Self.page(
                        title: "Sign-in response not recognised",
                        message: "This response does not belong to the sign-in in progress. Return to the "
                            + "application and try again if needed."))
                return
            }
        }
        guard let url = URL(string: origin + target) else {
            send(socket, status: 400, reason: "Bad Request", body: nil)
            return
        }
        let failed = parameters.contains { $0.name == "error" }
        send(
            socket, status: 200, reason: "OK",
            body: Self.page(
                title: failed ? "Sign-in failed" : "Sign-in complete",
                message: failed ? pages.errorMessage : pages.successMessage))
        if outcome.complete(.success(url)) {
            close()
        }
    }

    /// Reads up to the blank line that ends the request head; `nil` on timeout, close or overflow.
    private func readHead(_ socket: TCPSocket) -> String? {
        var bytes: [UInt8] = []
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        while bytes.count < Self.maximumHeadBytes {
            guard let chunk = try? socket.receive(maximumCount: 4096), !chunk.isEmpty else { return nil }
            bytes += chunk
            if bytes.firstRange(of: terminator) != nil {
                return String(decoding: bytes, as: UTF8.self)
            }
        }
        return nil
    }

    private func send(_ socket: TCPSocket, status: Int, reason: String, body: String?) {
        let content = Array((body ?? "\(status) \(reason)\n").utf8)
        let type = body == nil ? "text/plain; charset=utf-8" : "text/html; charset=utf-8"
        let head =
            "HTTP/1.1 \(status) \(reason)\r\nContent-Type: \(type)\r\nContent-Length: \(content.count)\r\n"
            + "Cache-Control: no-store\r\nReferrer-Policy: no-referrer\r\nX-Content-Type-Options: nosniff\r\n"
            + "Connection: close\r\n\r\n"
        try? socket.send(Array(head.utf8) + content)
    }

    /// A minimal HTML page with `title` and `message` (escaped).
    static func page(title: String, message: String) -> String {
        let title = escapeHTML(title)
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>\(title)</title></head>
            <body style="font-family: sans-serif; margin: 3em;"><h1>\(title)</h1><p>\(escapeHTML(message))</p></body>
            </html>

            """
    }

    static func escapeHTML(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
