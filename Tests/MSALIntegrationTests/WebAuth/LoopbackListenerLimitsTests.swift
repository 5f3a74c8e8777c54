import Foundation
import MSALNative
import XCTest

@testable import MSAL

/// The loopback listener's limits over real sockets: idle and slow connections cannot hold it,
/// and only a loopback `Host` is accepted.
/// The listener's documented deadline for a whole request (seconds).
private let listenerDeadline = LoopbackRedirectListener.requestDeadline

final class LoopbackListenerLimitsTests: XCTestCase {
    private let state = "c3RhdGUtMTIz"

    private func makeListener() throws -> LoopbackRedirectListener {
        try LoopbackRedirectListener(
            redirect: RedirectURI(validating: "http://localhost/callback", customWebview: false), correlationId: nil)
    }

    private func wait(_ listener: LoopbackRedirectListener) -> Task<URL, any Error> {
        let state = state
        return Task { try await listener.waitForRedirect(expectedState: state, timeout: 30) }
    }

    /// Sends `request` on a fresh connection and returns the status of the answer (0: closed unanswered).
    private func exchange(_ port: Int, _ request: String) async throws -> Int {
        try await onThread {
            let socket = try TCPSocket.connect(host: "127.0.0.1", port: port)
            defer { socket.close() }
            try socket.send(Array(request.utf8))
            var answer: [UInt8] = []
            while let chunk = try? socket.receive(maximumCount: 4096), !chunk.isEmpty { answer += chunk }
            let line = String(decoding: answer.prefix(40), as: UTF8.self)
            let words = line.split(separator: " ")
            return words.count > 1 ? Int(words[1]) ?? 0 : 0
        }
    }

    func testThirtyTwoAndMoreIdleConnectionsDoNotBlockTheRedirect() async throws {
        let listener = try makeListener()
        let waiting = wait(listener)
        var idle: [TCPSocket] = []
        defer { for socket in idle { socket.close() } }
        for _ in 0..<40 {
            idle.append(try TCPSocket.connect(host: "127.0.0.1", port: listener.port))
        }
        let started = Date()
        let page = try await fetch("http://127.0.0.1:\(listener.port)/callback?code=good&state=\(state)")
        XCTAssertEqual(page.status, 200, "exit \(page.exitCode)")
        XCTAssertLessThan(Date().timeIntervalSince(started), listenerDeadline + 2)
        guard page.status == 200 else {
            listener.cancel("test over")
            return
        }
        let url = try await waiting.value
        XCTAssertTrue(url.absoluteString.contains("code=good"))
    }

    func testSlowLorisIsDroppedAndTheRedirectStillArrives() async throws {
        let listener = try makeListener()
        let waiting = wait(listener)
        let port = listener.port
        // One client sends a request head a byte a second; it must be cut off at the deadline.
        let loris = Task {
            try await onThread {
                try slowLoris(port: port, head: "GET /callback?code=slow&state=c3RhdGUtMTIz HTTP/1.1\r\n")
            }
        }
        // More slow clients than the listener keeps, so the limit is what frees room.
        var lorises: [TCPSocket] = []
        defer { for socket in lorises { socket.close() } }
        for _ in 0..<40 {
            let socket = try TCPSocket.connect(host: "127.0.0.1", port: port)
            try socket.send(Array("GET /call".utf8))
            lorises.append(socket)
        }
        let page = try await fetch("http://127.0.0.1:\(port)/callback?code=good&state=\(state)")
        XCTAssertEqual(page.status, 200, "exit \(page.exitCode)")
        if page.status == 200 {
            let url = try await waiting.value
            XCTAssertTrue(url.absoluteString.contains("code=good"))
        } else {
            listener.cancel("test over")
        }
        // Sending fails once the listener closed the slow connection (at its deadline, or when it ended).
        let held = try await loris.value
        XCTAssertLessThan(held, listenerDeadline + 2, "the slow client was dropped")
    }

    func testSlowLorisAloneIsCutOffAtTheDeadline() async throws {
        let listener = try makeListener()
        let waiting = wait(listener)
        defer { listener.cancel("test over") }
        let port = listener.port
        let held = try await onThread {
            try slowLoris(port: port, head: "GET /callback?code=slow&state=c3RhdGUtMTIz HTTP/1.1\r\n")
        }
        XCTAssertLessThan(held, listenerDeadline + 2, "the slow client was dropped")
        _ = waiting
    }

    func testOnlyLoopbackHostValuesAreAccepted() async throws {
        let listener = try makeListener()
        let waiting = wait(listener)
        let port = listener.port
        let target = "/callback?code=evil&state=\(state)"
        for (headers, expected) in [
            ("Host: evil.example\r\n", 421), ("Host: evil.example:\(port)\r\n", 421),
            ("Host: localhost:\(port + 1)\r\n", 421), ("Host: 127.0.0.2:\(port)\r\n", 421), ("", 400),
            ("Host: localhost:\(port)\r\nHost: evil.example\r\n", 400),
        ] {
            let status = try await exchange(port, "GET \(target) HTTP/1.1\r\n\(headers)Connection: close\r\n\r\n")
            XCTAssertEqual(status, expected, headers)
        }
        for host in ["127.0.0.1:\(port)", "LOCALHOST:\(port)", "[::1]:\(port)"] {
            // Accepted hosts: a request with a wrong state proves the Host check passed (400 from the state check).
            let status = try await exchange(
                port, "GET /callback?code=x&state=wrong HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
            XCTAssertEqual(status, 400, host)
        }
        let status = try await exchange(
            port, "GET /callback?code=good&state=\(state) HTTP/1.1\r\nHost: localhost:\(port)\r\n\r\n")
        XCTAssertEqual(status, 200)
        let url = try await waiting.value
        XCTAssertTrue(url.absoluteString.contains("code=good"), url.absoluteString)
    }
}

/// A slow-loris client: sends `head` then `Host: localhost`... one byte a second, watching for the
/// server to close the connection; returns the seconds until it did (or until `limit`).
func slowLoris(port: Int, head: String, limit: TimeInterval = 15) throws -> TimeInterval {
    let socket = try TCPSocket.connect(host: "127.0.0.1", port: port)
    defer { socket.close() }
    let started = Date()
    var bytes = Array((head + "Host: localhost:\(port)\r\nX-Slow: " + String(repeating: "z", count: 64)).utf8)[...]
    while let byte = bytes.popFirst(), Date().timeIntervalSince(started) < limit {
        guard (try? socket.send([byte])) != nil else { break }
        // Waits a second for the server's close (end of stream) or an answer; nil: still open.
        guard (try? socket.receive(maximumCount: 256, timeout: 1)) == nil else { break }
    }
    return Date().timeIntervalSince(started)
}

/// Runs `body` on a thread of its own (blocking socket work stays off the cooperative pool).
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
