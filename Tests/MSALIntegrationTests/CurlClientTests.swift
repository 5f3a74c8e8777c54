import Foundation
import MSALNative
import MSALTestSupport
import XCTest

/// The curl client's two drivers (a lone request's caller, the loop thread) and the easy handles
/// it reuses between requests, against a real loopback HTTPS server.
final class CurlClientTests: XCTestCase {
    private var authority: TestCertificateAuthority!

    override func setUpWithError() throws {
        authority = try TestCertificateAuthority()
    }

    override func tearDown() {
        authority = nil
    }

    /// A server answering every request with its method, its `x-` headers in order and its body.
    private func makeEchoServer(delay: Double = 0) throws -> LoopbackHTTPSServer {
        try LoopbackHTTPSServer(certificateAuthority: authority) { request in
            let custom = request.headers.fields.filter { $0.name.lowercased().hasPrefix("x-") }
            let text =
                "\(request.method) \(request.path) "
                + custom.map { "\($0.name)=\($0.value)" }.joined(separator: ",")
                + " [\(request.bodyText)] len=\(request.header("Content-Length") ?? "-")"
            let response = HTTPServerResponse.text(text)
            return delay > 0 ? .respondAfter(seconds: delay, response) : .respond(response)
        }
    }

    private func request(
        _ server: LoopbackHTTPSServer, _ path: String, method: String = "GET",
        headers: [(name: String, value: String)] = [], body: [UInt8]? = nil, timeout: Double = 30
    ) -> CurlRequest {
        CurlRequest(
            url: server.baseURL.appendingPathComponent(path).absoluteString, method: method, headers: headers,
            body: body, caFile: authority.certificateFile, timeout: timeout)
    }

    private func text(_ response: CurlResponse) -> String {
        String(decoding: response.body, as: UTF8.self)
    }

    func testReusedHandleSendsEachRequestsOwnHeadersMethodAndBody() async throws {
        let server = try makeEchoServer()
        defer { server.stop() }
        let client = try CurlClient()
        let steps: [(CurlRequest, String)] = [
            (
                request(server, "a", method: "POST", headers: [("x-a", "1"), ("x-b", "2")], body: Array("one".utf8)),
                "POST /a x-a=1,x-b=2 [one] len=3"
            ),
            // Same first header, a different second one, and one more.
            (
                request(
                    server, "a", method: "POST", headers: [("x-a", "1"), ("x-c", "3"), ("x-d", "4")],
                    body: Array("two!".utf8)),
                "POST /a x-a=1,x-c=3,x-d=4 [two!] len=4"
            ),
            // Fewer headers than before: the dropped ones must not be sent.
            (request(server, "b", method: "POST", headers: [("x-a", "1")], body: []), "POST /b x-a=1 [] len=0"),
            // No headers at all, then a GET after POSTs: no body, no length.
            (request(server, "c", method: "POST", body: Array("3".utf8)), "POST /c  [3] len=1"),
            (request(server, "d", headers: [("x-e", "5")]), "GET /d x-e=5 [] len=-"),
            (request(server, "d", headers: [("x-e", "5")]), "GET /d x-e=5 [] len=-"),
            // Another method with a body, then a POST again.
            (request(server, "e", method: "PUT", body: Array("put".utf8)), "PUT /e  [put] len=3"),
            (
                request(server, "f", method: "POST", headers: [("x-a", "9")], body: Array("x".utf8)),
                "POST /f x-a=9 [x] len=1"
            ),
        ]
        for (index, (curlRequest, expected)) in steps.enumerated() {
            let response = try await client.perform(curlRequest)
            XCTAssertEqual(response.status, 200, "step \(index)")
            XCTAssertEqual(text(response), expected, "step \(index)")
        }
        XCTAssertEqual(server.acceptedConnections, 1)
    }

    func testHeadEndsWithTheHeadWhateverLengthItAnnounces() async throws {
        // A HEAD answer announces the GET's length and sends no body (the server leaves it out).
        let server = try LoopbackHTTPSServer(certificateAuthority: authority) { request in
            request.method == "HEAD"
                ? .respond(.init(headers: ["Content-Length": "1000000", "X-Items": "42"]))
                : .respond(.text("\(request.method) body"))
        }
        defer { server.stop() }
        let client = try CurlClient()
        let start = ContinuousClock.now
        // Before each HEAD, another method on the same handle; a body limit below the announced
        // length (no body comes, so none is refused); a timeout that a wait for the body would hit.
        let head = request(server, "items", method: "HEAD", timeout: 5)
        var limited = head
        limited.maximumBodySize = 1024
        for (index, step) in [head, request(server, "items"), limited, head].enumerated() {
            let response = try await client.perform(step)
            XCTAssertEqual(response.status, 200, "step \(index)")
            if step.method == "HEAD" {
                XCTAssertEqual(response.body, [], "step \(index)")
                XCTAssertTrue(response.headers.contains { $0 == ("X-Items", "42") }, "step \(index)")
                XCTAssertTrue(response.headers.contains { $0 == ("Content-Length", "1000000") }, "step \(index)")
            } else {
                XCTAssertEqual(text(response), "GET body", "step \(index)")
            }
        }
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(4), "no wait for the announced body")
        XCTAssertEqual(server.acceptedConnections, 1, "the connection is kept after a HEAD answer")
    }

    func testSlowAnswerIsHandedToTheLoopThreadAndStillArrives() async throws {
        let server = try makeEchoServer(delay: 0.1)
        defer { server.stop() }
        // The caller gives up driving after 1 ms; the answer takes 100 ms.
        let client = try CurlClient(limits: .init(callerDrivesFor: .milliseconds(1)))
        for index in 0..<3 {
            let response = try await client.perform(request(server, "slow\(index)"))
            XCTAssertEqual(text(response), "GET /slow\(index)  [] len=-")
        }
        XCTAssertEqual(server.acceptedConnections, 1)
    }

    func testRequestsArrivingWhileACallerDrivesAllComplete() async throws {
        let server = try makeEchoServer(delay: 0.02)
        defer { server.stop() }
        // A generous budget, so that below a lone request is driven by its caller even when
        // the machine is slow (sanitizers).
        let client = try CurlClient(limits: .init(callerDrivesFor: .seconds(1)))
        let template = request(server, "p", method: "POST")
        try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<40 {
                group.addTask {
                    var numbered = template
                    numbered.body = Array("n\(index)".utf8)
                    let response = try await client.perform(numbered)
                    return (index, String(decoding: response.body, as: UTF8.self))
                }
            }
            var answered = 0
            for try await (index, text) in group {
                XCTAssertEqual(text, "POST /p  [n\(index)] len=\("n\(index)".utf8.count)")
                answered += 1
            }
            XCTAssertEqual(answered, 40)
        }
        // The loop thread goes back to sleep once the burst is over (it does not keep polling).
        let deadline = ContinuousClock.now + .seconds(5)
        while !client.isIdle, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        XCTAssertTrue(client.isIdle, "the loop thread did not park after the burst")
        // Lone requests after the burst are driven by their callers again: the loop thread
        // stays asleep.
        for _ in 0..<5 {
            let status = try await client.perform(request(server, "after")).status
            XCTAssertEqual(status, 200)
            XCTAssertTrue(client.isIdle, "a lone request was not driven by its caller")
        }
    }

    func testLoopThreadDrivingOnlyStillAnswers() async throws {
        let server = try makeEchoServer()
        defer { server.stop() }
        let client = try CurlClient(limits: .init(callerDrivesFor: .zero))
        for index in 0..<20 {
            let response = try await client.perform(request(server, "q", headers: [("x-n", "\(index)")]))
            XCTAssertEqual(text(response), "GET /q x-n=\(index) [] len=-")
        }
        XCTAssertEqual(server.acceptedConnections, 1)
    }

    func testCancellingAnHandedOverTransferEndsItPromptly() async throws {
        // The caller's budget runs out long before the answer: the loop thread has the transfer.
        try await assertCancellationEndsATransferPromptly(try CurlClient(), within: .seconds(1))
    }

    func testCancellingWhileTheCallerDrivesEndsItPromptly() async throws {
        // A caller with a long budget is still driving its own transfer when its task is
        // cancelled: it notices between two polls and hands the transfer over to be removed.
        try await assertCancellationEndsATransferPromptly(
            try CurlClient(limits: .init(callerDrivesFor: .seconds(3))), within: .milliseconds(500))
    }

    /// Cancels a request to a server that answers after 5 s, 100 ms after it started: it must
    /// fail as cancelled within `limit`, and `client` must go on working.
    private func assertCancellationEndsATransferPromptly(
        _ client: CurlClient, within limit: Duration, file: StaticString = #filePath, line: UInt = #line
    ) async throws {
        let server = try makeEchoServer(delay: 5)
        defer { server.stop() }
        let slow = request(server, "slow")
        let task = Task { try await client.perform(slow) }
        try await Task.sleep(for: .milliseconds(100))
        let start = ContinuousClock.now
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("expected cancellation", file: file, line: line)
        } catch {
            XCTAssertTrue((error as? CurlError)?.isCancellation == true, "\(error)", file: file, line: line)
        }
        XCTAssertLessThan(ContinuousClock.now - start, limit, file: file, line: line)
        let quick = try makeEchoServer()
        defer { quick.stop() }
        let status = try await client.perform(request(quick, "ok")).status
        XCTAssertEqual(status, 200, file: file, line: line)
    }

    func testTimeoutWhileTheCallerDrivesIsReported() async throws {
        let server = try makeEchoServer(delay: 2)
        defer { server.stop() }
        // A 1 s budget for the caller, a 0.3 s timeout for the transfer: the caller is still
        // driving when the timeout strikes.
        let client = try CurlClient(limits: .init(callerDrivesFor: .seconds(1)))
        do {
            _ = try await client.perform(request(server, "slow", timeout: 0.3))
            XCTFail("expected a timeout")
        } catch {
            XCTAssertEqual(error.code, 28)  // CURLE_OPERATION_TIMEDOUT
        }
    }
}
