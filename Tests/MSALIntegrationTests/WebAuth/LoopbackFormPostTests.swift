import Foundation
import MSALNative
import XCTest

@testable import MSAL

/// The loopback listener in form_post mode over real sockets: the code arrives in a POST body,
/// a GET carrying a code is refused, and the body is bounded.
final class LoopbackFormPostTests: XCTestCase {
    private let state = "c3RhdGUtMTIz"

    private func makeListener() throws -> LoopbackRedirectListener {
        try LoopbackRedirectListener(
            redirect: RedirectURI(validating: "http://localhost/callback", customWebview: false),
            pages: .init(successMessage: "Done", errorMessage: "It failed"), correlationId: nil)
    }

    private func wait(_ listener: LoopbackRedirectListener) -> Task<URL, any Error> {
        let state = state
        return Task {
            try await listener.waitForRedirect(expectedState: state, responseMode: .formPost, timeout: 30)
        }
    }

    /// Sends raw `request` on a new connection; returns the answer's status and body (0: none).
    private func exchange(_ port: Int, _ request: String) async throws -> (status: Int, body: String) {
        try await onThread {
            let socket = try TCPSocket.connect(host: "127.0.0.1", port: port)
            defer { socket.close() }
            try socket.send(Array(request.utf8))
            var answer: [UInt8] = []
            while let chunk = try? socket.receive(maximumCount: 4096), !chunk.isEmpty { answer += chunk }
            let text = String(decoding: answer, as: UTF8.self)
            let words = text.prefix(40).split(separator: " ")
            let body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
            return (words.count > 1 ? Int(words[1]) ?? 0 : 0, body)
        }
    }

    private func post(_ port: Int, _ body: String, type: String = "application/x-www-form-urlencoded") -> String {
        "POST /callback HTTP/1.1\r\nHost: localhost:\(port)\r\nContent-Type: \(type)\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
    }

    func testTheCodeIsReadFromThePostedForm() async throws {
        let listener = try makeListener()
        let waiting = wait(listener)
        let body = "code=SECRET%2Bcode&state=\(state)&session_state=s+1"
        let answer = try await exchange(listener.port, post(listener.port, body))
        XCTAssertEqual(answer.status, 200)
        XCTAssertTrue(answer.body.contains("Done"), answer.body)
        XCTAssertFalse(answer.body.contains("SECRET"))
        let url = try await waiting.value
        XCTAssertTrue(url.absoluteString.hasPrefix("http://localhost:\(listener.port)/callback?"), url.absoluteString)
        let parameters = try AuthorizationResponse.parameters(of: url, correlationId: nil)
        XCTAssertEqual(parameters["code"], "SECRET+code")
        XCTAssertEqual(parameters["state"], state)
        XCTAssertEqual(parameters["session_state"], "s 1")
    }

    func testAGetCarryingACodeIsRefusedAndTheWaitGoesOn() async throws {
        let listener = try makeListener()
        let waiting = wait(listener)
        let page = try await fetch("http://localhost:\(listener.port)/callback?code=LEAKED&state=\(state)")
        XCTAssertEqual(page.status, 400)
        XCTAssertTrue(page.body.contains("expects its response as a form submission"), page.body)
        let bare = try await fetch("http://localhost:\(listener.port)/callback?state=\(state)")
        XCTAssertEqual(bare.status, 400, "a GET without code or error is not a response either")
        let answer = try await exchange(listener.port, post(listener.port, "code=good&state=\(state)"))
        XCTAssertEqual(answer.status, 200)
        let url = try await waiting.value
        XCTAssertEqual(try AuthorizationResponse.parameters(of: url, correlationId: nil)["code"], "good")
    }

    func testAnErrorMayStillArriveInTheQuery() async throws {
        let listener = try makeListener()
        let waiting = wait(listener)
        let page = try await fetch("http://localhost:\(listener.port)/callback?error=access_denied&state=\(state)")
        XCTAssertEqual(page.status, 200)
        XCTAssertTrue(page.body.contains("It failed"), page.body)
        let url = try await waiting.value
        XCTAssertTrue(url.absoluteString.contains("error=access_denied"))
    }

    func testMalformedOrOversizedPostsAreRefused() async throws {
        let listener = try makeListener()
        let waiting = wait(listener)
        let port = listener.port
        let big = String(repeating: "a", count: LoopbackRedirectListener.maximumBodyBytes + 1)
        let cases: [(String, Int)] = [
            (post(port, "code=x&state=\(state)", type: "text/plain"), 415),
            (post(port, "code=x&state=\(state)", type: "multipart/form-data; boundary=x"), 415),
            (post(port, "code=" + big), 413),
            (
                "POST /callback HTTP/1.1\r\nHost: localhost:\(port)\r\nContent-Type: application/x-www-form-urlencoded"
                    + "\r\nTransfer-Encoding: chunked\r\n\r\n5\r\ncode=\r\n0\r\n\r\n", 411
            ),
            (
                "POST /callback HTTP/1.1\r\nHost: localhost:\(port)\r\nContent-Type: application/x-www-form-urlencoded"
                    + "\r\n\r\ncode=x", 411
            ),
            (post(port, "code=x&state=wrong"), 400),
            (post(port, "code=%ZZ&state=\(state)"), 400),
            ("POST /other HTTP/1.1\r\nHost: localhost:\(port)\r\nContent-Length: 0\r\n\r\n", 404),
            (
                post(port, "code=x&state=\(state)").replacingOccurrences(of: "localhost:\(port)", with: "evil.example"),
                421
            ),
        ]
        for (request, expected) in cases {
            let answer = try await exchange(port, request)
            XCTAssertEqual(answer.status, expected, String(request.prefix(160)))
        }
        let answer = try await exchange(port, post(port, "code=good&state=\(state)"))
        XCTAssertEqual(answer.status, 200)
        _ = try await waiting.value
    }

    func testABodyThatNeverArrivesIsDroppedAtTheDeadline() async throws {
        let listener = try makeListener()
        let waiting = wait(listener)
        let port = listener.port
        let started = Date()
        let status = try await exchange(
            port,
            "POST /callback HTTP/1.1\r\nHost: localhost:\(port)\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                + "Content-Length: 100\r\n\r\ncode=")
        XCTAssertEqual(status.status, 0, "dropped without an answer")
        XCTAssertLessThan(Date().timeIntervalSince(started), LoopbackRedirectListener.requestDeadline + 3)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), LoopbackRedirectListener.requestDeadline - 1)
        let answer = try await exchange(port, post(port, "code=good&state=\(state)"))
        XCTAssertEqual(answer.status, 200)
        _ = try await waiting.value
    }
}
