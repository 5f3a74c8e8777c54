import Foundation
import MSALNative

/// Receives the browser's redirect on a loopback address (RFC 8252 §7.3): plain HTTP on
/// 127.0.0.1 and, for `localhost`, also on ::1 with the same port.
///
/// - Binds when created (port 0 gives a free port, see ``port``); starts answering with
///   ``waitForRedirect(expectedState:responseMode:timeout:)``.
/// - In ``RedirectResponseMode/query`` mode only `GET` on the redirect URI's path counts; in
///   ``RedirectResponseMode/formPost`` mode only a `POST` of an `application/x-www-form-urlencoded`
///   body (at most ``maximumBodyBytes``) does, and a `GET` carrying a `code` is refused with an
///   error page and never returned (a `GET` carrying only an `error` is still taken). Other paths
///   and methods get 404 and the wait goes on.
/// - Only a loopback `Host` naming the listener's port (`127.0.0.1:<port>`, `localhost:<port>`,
///   `[::1]:<port>`, case-insensitive) is answered; another host (a DNS-rebinding page) gets 421,
///   a missing or repeated `Host` 400, and the wait goes on.
/// - A request on the path without the expected `state` gets an error page and is ignored, so a
///   stray or malicious local request cannot end the sign-in.
/// - At most ``maximumConnections`` connections are served at once; when all are taken, the one
///   open longest is dropped for the newcomer. Each connection has ``requestDeadline`` seconds
///   from its accept for its whole request (head and body); a silent or slow client is dropped
///   then, so idle or slow-loris connections cannot keep the browser's redirect out.
/// - The browser gets a short success or error page (no code, token or server message in it).
/// - Sockets are accepted and read on threads of their own, never on Swift's cooperative pool.
/// - Ends with the full redirect URL (in form_post mode, the redirect URI with the POSTed
///   parameters as its query: assembled here, never sent over the wire), or fails with
///   ``MSALError/userCanceled`` on timeout, on cancellation of the waiting task, or on
///   ``cancel(_:)``; ``fail(_:)`` ends it with any error. The sockets are closed when it ends.
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
        var responseMode = RedirectResponseMode.query
        /// The open connections and their accept order (the smallest was accepted first).
        var connections: [ObjectIdentifier: (socket: TCPSocket, order: Int)] = [:]
        var accepted = 0
        var timer: DispatchWorkItem?
    }

    /// The most connections served at once (16). A browser opens one or two (a speculative one
    /// among them); when all are taken, the connection open longest is dropped for the newcomer.
    static let maximumConnections = 16
    /// Seconds a connection has, from its accept, to send its whole request, head and body (5).
    /// A browser sends its redirect at once; a silent or slow client is dropped at this deadline.
    static let requestDeadline: Double = 5
    /// The largest request head read (16 KiB); a longer one gets 431.
    static let maximumHeadBytes = 16384
    /// The largest form_post body read (64 KiB; Entra's is a few KiB); a longer one gets 413.
    static let maximumBodyBytes = 65536

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
    ///   - responseMode: the `response_mode` of the authorize URL: how the redirect arrives.
    ///   - timeout: seconds to wait for the browser.
    /// - Returns: the redirect URL (`http://localhost:<port>/<path>?code=...&state=...`).
    /// - Throws: ``MSALError/userCanceled`` on timeout or cancellation; the error given to ``fail(_:)``.
    func waitForRedirect(
        expectedState: String?, responseMode: RedirectResponseMode = .query, timeout: TimeInterval
    ) async throws -> URL {
        start(expectedState: expectedState, responseMode: responseMode, timeout: timeout)
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
            return (state.connections.values.map(\.socket), state.timer)
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

    private func start(expectedState: String?, responseMode: RedirectResponseMode, timeout: TimeInterval) {
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
            state.responseMode = responseMode
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
            let key = ObjectIdentifier(socket)
            let admission = state.withLock { state -> (admitted: Bool, evicted: TCPSocket?) in
                guard !state.closed else { return (false, nil) }
                var evicted: TCPSocket?
                if state.connections.count >= Self.maximumConnections,
                    let oldest = state.connections.min(by: { $0.value.order < $1.value.order })
                {
                    state.connections[oldest.key] = nil
                    evicted = oldest.value.socket
                }
                state.accepted += 1
                state.connections[key] = (socket, state.accepted)
                return (true, evicted)
            }
            // The dropped connection's thread wakes, finds its socket shut and closes it.
            admission.evicted?.shutdown()
            guard admission.admitted else {
                socket.close()
                continue
            }
            let thread = Thread { [self] in
                serve(socket)
                state.withLock { _ = $0.connections.removeValue(forKey: key) }
                socket.close()
            }
            thread.name = "msal-loopback-connection"
            thread.start()
        }
    }

    // MARK: - One request

    private func serve(_ socket: TCPSocket) {
        let deadline = ContinuousClock.now + .milliseconds(Int(Self.requestDeadline * 1000))
        let request: LoopbackHTTPRequest
        switch readRequest(socket, deadline: deadline) {
        case .request(let read): request = read
        case .dropped: return
        case .refused(let status, let reason):
            send(socket, status: status, reason: reason, body: nil)
            return
        }
        let (expectedState, mode) = state.withLock { ($0.expectedState, $0.responseMode) }
        let decision = LoopbackRequestDecision.decide(
            method: request.method, target: request.target, headers: request.headers, body: request.body,
            expecting: .init(path: expectedPath, port: port, origin: origin, state: expectedState, mode: mode))
        switch decision {
        case .refuse(let status, let reason, let page, let warning):
            if let warning { Log.warning("\(warning)", correlationId: correlationId) }
            send(
                socket, status: status, reason: reason,
                body: page.map { Self.page(title: $0.title, message: $0.message) })
        case .deliver(let url, let failed):
            send(
                socket, status: 200, reason: "OK",
                body: Self.page(
                    title: failed ? "Sign-in failed" : "Sign-in complete",
                    message: failed ? pages.errorMessage : pages.successMessage))
            if outcome.complete(.success(url)) {
                close()
            }
        }
    }

    /// One request as read: method, target, headers (names lower-cased) and, for a POST, the body.
    private struct LoopbackHTTPRequest {
        var method: String
        var target: String
        var headers: [(name: String, value: String)]
        var body: [UInt8]?
    }

    private enum ReadOutcome {
        case request(LoopbackHTTPRequest)
        /// Answer with this status and close.
        case refused(Int, String)
        /// Close without an answer (timed out, closed by the client, or dropped for another).
        case dropped
    }

    /// Reads one request (head, and the body of a form_post) before `deadline`.
    private func readRequest(_ socket: TCPSocket, deadline: ContinuousClock.Instant) -> ReadOutcome {
        var bytes: [UInt8] = []
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd: Range<Int>?
        while headEnd == nil {
            guard bytes.count <= Self.maximumHeadBytes else { return .refused(431, "Request Header Fields Too Large") }
            guard let chunk = receive(socket, before: deadline) else { return .dropped }
            let searchFrom = max(0, bytes.count - 3)
            bytes += chunk
            headEnd = bytes[searchFrom...].firstRange(of: terminator)
        }
        guard let headEnd, headEnd.lowerBound <= Self.maximumHeadBytes else {
            return .refused(431, "Request Header Fields Too Large")
        }
        let head = String(decoding: bytes[..<headEnd.lowerBound], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let words = (lines.first ?? "").split(separator: " ", omittingEmptySubsequences: false)
        guard words.count == 3, words[2].hasPrefix("HTTP/1."), !words[1].isEmpty else {
            return .refused(400, "Bad Request")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { return .refused(400, "Bad Request") }
            headers.append(
                (
                    line[..<colon].lowercased(),
                    line[line.index(after: colon)...].trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
                ))
        }
        var request = LoopbackHTTPRequest(
            method: String(words[0]), target: String(words[1]), headers: headers, body: nil)
        // Only a form_post to the redirect path has a body worth reading; anything else gets its answer now.
        let mode = state.withLock { $0.responseMode }
        let path = String(request.target.prefix { $0 != "?" && $0 != "#" })
        guard request.method == "POST", mode == .formPost, path == expectedPath else { return .request(request) }

        // A form_post body: Content-Length only (a browser's form never uses chunked encoding).
        guard !headers.contains(where: { $0.name == "transfer-encoding" }) else {
            return .refused(411, "Length Required")
        }
        let lengths = headers.filter { $0.name == "content-length" }
        guard lengths.count == 1, let length = Int(lengths[0].value), length >= 0 else {
            return .refused(411, "Length Required")
        }
        guard length <= Self.maximumBodyBytes else { return .refused(413, "Content Too Large") }
        let type = headers.first { $0.name == "content-type" }?.value.lowercased() ?? ""
        guard
            type.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
                == "application/x-www-form-urlencoded"
        else { return .refused(415, "Unsupported Media Type") }
        var body = Array(bytes[headEnd.upperBound...])
        while body.count < length {
            guard let chunk = receive(socket, before: deadline) else { return .dropped }
            body += chunk
        }
        request.body = Array(body.prefix(length))
        return .request(request)
    }

    /// The next bytes before `deadline`; `nil` when the deadline passed or the stream ended.
    private func receive(_ socket: TCPSocket, before deadline: ContinuousClock.Instant) -> [UInt8]? {
        let left = deadline - ContinuousClock.now
        let seconds = Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18
        guard seconds > 0, let chunk = try? socket.receive(maximumCount: 4096, timeout: seconds), !chunk.isEmpty
        else { return nil }
        return chunk
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
