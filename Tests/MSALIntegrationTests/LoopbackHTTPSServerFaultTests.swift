import Foundation
import MSALNative
import MSALTestSupport
import XCTest

/// Fault injection (dropped, partial, raw and delayed responses) and malformed requests: the
/// client sees the fault, the server keeps serving.
final class LoopbackHTTPSServerFaultTests: XCTestCase {
    static let faults: @Sendable (HTTPServerRequest) -> HTTPServerAction = { request in
        switch request.path {
        case "/drop": .closeConnection
        case "/garbage": .respondRaw(Data("NOT HTTP AT ALL\r\n\r\n".utf8), close: true)
        case "/partial": .respondPartially(.text(String(repeating: "a", count: 1000)), bytes: 120)
        case "/slow": .respondAfter(seconds: 0.3, .text("slow"))
        case "/very-slow": .respondAfter(seconds: 5, .text("very slow"))
        case "/big": .respondAfter(seconds: 0.2, .text(String(repeating: "b", count: 4 << 20)))
        default: .respond(.text("ok"))
        }
    }

    private func curl(_ server: LoopbackHTTPSServer, _ arguments: [String]) throws -> CurlCommand.Result {
        try CurlCommand.run(["--cacert", server.certificateAuthority.certificateFile] + arguments)
    }

    private func assertStillServing(_ server: LoopbackHTTPSServer, file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        let result = try curl(server, ["\(server.baseURL)/ok"])
        XCTAssertEqual(result.output, "ok", result.errorOutput, file: file, line: line)
    }

    func testDroppedGarbageAndPartialResponsesFailTheClientOnly() throws {
        let server = try LoopbackHTTPSServer(handler: Self.faults)
        defer { server.stop() }
        let dropped = try curl(server, ["\(server.baseURL)/drop"])
        XCTAssertEqual(dropped.exitCode, 52, dropped.errorOutput)  // CURLE_GOT_NOTHING
        try assertStillServing(server)
        let garbage = try curl(server, ["\(server.baseURL)/garbage"])
        XCTAssertNotEqual(garbage.exitCode, 0, garbage.output)
        try assertStillServing(server)
        let partial = try curl(server, ["\(server.baseURL)/partial"])
        XCTAssertEqual(partial.exitCode, 18, partial.errorOutput)  // CURLE_PARTIAL_FILE
        XCTAssertTrue(partial.output.hasPrefix("a"), partial.output)
        try assertStillServing(server)
        XCTAssertEqual(server.requestCount, 6)
    }

    func testRawResponseOnAKeptConnection() throws {
        let server = try LoopbackHTTPSServer { request in
            request.path == "/raw"
                ? .respondRaw(Data("HTTP/1.1 299 Odd\r\nContent-Length: 3\r\n\r\nraw".utf8), close: false)
                : .respond(.text("ok"))
        }
        defer { server.stop() }
        let client = try RawTLSClient(server: server)
        let raw = try client.get("/raw")
        XCTAssertEqual(raw.status, 299)
        XCTAssertEqual(raw.body, "raw")
        XCTAssertEqual(try client.get("/next").body, "ok")
        XCTAssertEqual(server.acceptedConnections, 1)
    }

    func testDelayedResponsesAndClientTimeouts() throws {
        let server = try LoopbackHTTPSServer(handler: Self.faults)
        defer { server.stop() }
        let started = Date()
        let slow = try curl(server, ["\(server.baseURL)/slow"])
        XCTAssertEqual(slow.output, "slow", slow.errorOutput)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.3)
        let timedOut = try curl(server, ["--max-time", "0.3", "\(server.baseURL)/very-slow"])
        XCTAssertEqual(timedOut.exitCode, 28, timedOut.errorOutput)  // CURLE_OPERATION_TIMEDOUT
        try assertStillServing(server)
    }

    func testClientLeavingBeforeTheResponseDoesNotHurtTheServer() throws {
        let server = try LoopbackHTTPSServer(handler: Self.faults)
        defer { server.stop() }
        for _ in 0..<3 {
            let client = try RawTLSClient(server: server)
            try client.send("GET /big HTTP/1.1\r\nHost: test\r\n\r\n")
            client.connection.socket.close()
        }
        Thread.sleep(forTimeInterval: 0.4)  // the server writes 4 MiB to peers that left
        try assertStillServing(server)
    }

    func testMalformedRequestsGet400AndClose() throws {
        let server = try LoopbackHTTPSServer { _ in .respond(.text("ok")) }
        defer { server.stop() }
        let malformed = [
            "GARBAGE\r\n\r\n",
            "GET /\r\nHost: x\r\n\r\n",
            "GET / HTTP/1.1\r\nNo colon here\r\n\r\n",
            "GET / HTTP/1.1\r\nBad Name: x\r\n\r\n",
            "GET / HTTP/1.1\r\n folded: x\r\n\r\n",
            "POST / HTTP/1.1\r\nContent-Length: 12x\r\n\r\n",
            "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            "GET / HTTP/1.1\r\nX: \u{1}\r\n\r\n",
        ]
        for request in malformed {
            let client = try RawTLSClient(server: server)
            try client.send(request)
            let answer = try client.readToEnd()
            XCTAssertTrue(answer.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(request.debugDescription): \(answer)")
            XCTAssertTrue(answer.contains("Connection: close\r\n"), answer)
        }
        let unknownVersion = try RawTLSClient(server: server)
        try unknownVersion.send("GET / HTTP/2.0\r\n\r\n")
        XCTAssertTrue(try unknownVersion.readToEnd().hasPrefix("HTTP/1.1 505 "))
        let unknownCoding = try RawTLSClient(server: server)
        try unknownCoding.send("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n")
        XCTAssertTrue(try unknownCoding.readToEnd().hasPrefix("HTTP/1.1 501 "))
        let huge = try RawTLSClient(server: server)
        try huge.send("GET / HTTP/1.1\r\nX-Big: \(String(repeating: "h", count: 70_000))\r\n\r\n")
        XCTAssertTrue(try huge.readToEnd().hasPrefix("HTTP/1.1 431 "))
        let tooLong = try RawTLSClient(server: server)
        try tooLong.send("POST / HTTP/1.1\r\nContent-Length: 999999999999\r\n\r\n")
        XCTAssertTrue(try tooLong.readToEnd().hasPrefix("HTTP/1.1 413 "))
        XCTAssertEqual(server.requestCount, 0)
        XCTAssertEqual(try RawTLSClient(server: server).get("/").body, "ok")
    }

    func testPipelinedAndChunkedRequestsOnOneConnection() throws {
        let server = try LoopbackHTTPSServer { request in
            .respond(.text("\(request.requestNumberOnConnection):\(request.bodyText)"))
        }
        defer { server.stop() }
        let client = try RawTLSClient(server: server)
        try client.send(
            "\r\nPOST /a HTTP/1.1\r\nContent-Length: 3\r\n\r\none"
                + "POST /b HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\ntwo\r\n2\r\n!!\r\n0\r\nTrailer: x\r\n\r\n"
                + "GET /c HTTP/1.1\nHost: bare-lf\n\n"
        )
        XCTAssertEqual(try client.readResponse().body, "1:one")
        XCTAssertEqual(try client.readResponse().body, "2:two!!")
        XCTAssertEqual(try client.readResponse().body, "3:")
        XCTAssertEqual(server.acceptedConnections, 1)
    }
}
