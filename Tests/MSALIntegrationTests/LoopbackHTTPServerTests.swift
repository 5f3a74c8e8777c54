import Foundation
import MSALNative
import MSALTestSupport
import XCTest

/// The plain-HTTP loopback server, and the generated misbehaviours (endless and oversized bodies,
/// a stalled or endless head) of both servers: what a client receives, and that the server stays
/// in control of its threads while it sends them.
final class LoopbackHTTPServerTests: XCTestCase {
    private func curl(_ arguments: [String]) throws -> CurlCommand.Result {
        try CurlCommand.run(arguments)
    }

    func testServesPlainHTTPAndShowsTheHandlerEveryPartOfTheRequest() throws {
        let seen = Locked<[HTTPServerRequest]>([])
        let server = try LoopbackHTTPServer { request in
            seen.withLock { $0.append(request) }
            return .respond(.text("got \(request.method) \(request.path)"))
        }
        defer { server.stop() }
        XCTAssertEqual(server.baseURL.absoluteString, "http://127.0.0.1:\(server.port)")
        XCTAssertEqual(server.acceptedConnections, 0)
        let posted = try curl([
            "-H", "Authorization: Bearer secret-value", "--data-binary", "refresh_token=abc&x=1",
            "\(server.baseURL)/token?q=1", "\(server.baseURL)/second",
        ])
        XCTAssertEqual(posted.exitCode, 0, posted.errorOutput)
        XCTAssertEqual(posted.output, "got POST /tokengot POST /second")
        XCTAssertEqual(server.requestCount, 2)
        XCTAssertEqual(server.acceptedConnections, 1, "curl kept the connection alive")
        let requests = seen.withLock { $0 }
        XCTAssertEqual(requests.count, 2)
        XCTAssertEqual(requests[0].method, "POST")
        XCTAssertEqual(requests[0].target, "/token?q=1")
        XCTAssertEqual(requests[0].header("Authorization"), "Bearer secret-value")
        XCTAssertEqual(requests[0].bodyText, "refresh_token=abc&x=1")
        XCTAssertEqual(requests[1].requestNumberOnConnection, 2)
    }

    func testAnUnreachedServerCountsNothing() throws {
        let server = try LoopbackHTTPServer { _ in .respond(.text("unused")) }
        server.stop()
        XCTAssertEqual(server.acceptedConnections, 0)
        XCTAssertEqual(server.requestCount, 0)
        let refused = try curl(["\(server.baseURL)/"])
        XCTAssertEqual(refused.exitCode, 7, "connection refused once stopped")  // CURLE_COULDNT_CONNECT
    }

    func testEndlessBodyKeepsComingUntilTheClientGivesUp() throws {
        let server = try LoopbackHTTPServer { _ in .respondEndlessBody() }
        defer { server.stop() }
        let result = try curl([
            "-o", "/dev/null", "-w", "%{http_code} %{size_download}", "--max-time", "1",
            "\(server.baseURL)/",
        ])
        XCTAssertEqual(result.exitCode, 28, result.errorOutput)  // CURLE_OPERATION_TIMEDOUT
        let parts = result.output.split(separator: " ")
        XCTAssertEqual(parts.first, "200")
        XCTAssertGreaterThan(Int(parts.last ?? "") ?? 0, 4 << 20, "more than 4 MiB in a second")
        // The connection thread noticed the client leaving and serves the next one.
        XCTAssertEqual(try curl(["-o", "/dev/null", "--max-time", "0.3", "\(server.baseURL)/"]).exitCode, 28)
        XCTAssertEqual(server.acceptedConnections, 2)
    }

    func testOversizedBodiesHaveExactlyTheirSizeWithOrWithoutALength() throws {
        let server = try LoopbackHTTPServer { request in
            .respondOversizedBody(bytes: 5_000_123, chunked: request.path == "/chunked")
        }
        defer { server.stop() }
        for path in ["/length", "/chunked"] {
            let result = try curl([
                "-o", "/dev/null", "-D", "-", "-w", "size=%{size_download}", "\(server.baseURL)\(path)",
            ])
            XCTAssertEqual(result.exitCode, 0, result.errorOutput)
            XCTAssertTrue(result.output.hasSuffix("size=5000123"), result.output)
            let lower = result.output.lowercased()
            XCTAssertEqual(lower.contains("content-length: 5000123"), path == "/length", result.output)
            XCTAssertEqual(lower.contains("transfer-encoding: chunked"), path == "/chunked", result.output)
        }
    }

    func testStallMidHeadSendsPartOfTheHeadThenWaitsForTheClientToLeave() throws {
        let server = try LoopbackHTTPServer { _ in .stallMidHead(headers: ["X-Half": "yes"]) }
        defer { server.stop() }
        let socket = try TCPSocket.connect(host: "127.0.0.1", port: server.port)
        try socket.send(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        socket.setReceiveTimeout(seconds: 0.5)
        var received: [UInt8] = []
        while let more = try? socket.receive(), !more.isEmpty { received += more }
        let text = String(decoding: received, as: UTF8.self)
        XCTAssertEqual(text, "HTTP/1.1 200 OK\r\nX-Half: yes\r\n", "the head never ends")
        socket.close()
        // The stalled thread ends with the client: the next client gets its own stall.
        let curlResult = try curl(["--max-time", "0.5", "\(server.baseURL)/"])
        XCTAssertEqual(curlResult.exitCode, 28, curlResult.errorOutput)
        XCTAssertEqual(server.requestCount, 2)
    }

    func testEndlessHeadIsHeaderLinesWithoutEnd() throws {
        let server = try LoopbackHTTPServer { _ in .respondEndlessHead(status: 203) }
        defer { server.stop() }
        let socket = try TCPSocket.connect(host: "127.0.0.1", port: server.port)
        defer { socket.close() }
        try socket.send(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        var received: [UInt8] = []
        while received.count < 2 << 20 {
            let more = try socket.receive(maximumCount: 65536)
            guard !more.isEmpty else { break }
            received += more
        }
        XCTAssertGreaterThanOrEqual(received.count, 2 << 20)
        let text = String(decoding: received, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 203 Status\r\nX-Filler-1: aaaa"), String(text.prefix(80)))
        XCTAssertFalse(text.contains("\r\n\r\n"), "no empty line ends the head")
    }

    func testStopEndsEveryGeneratedResponseAtOnce() throws {
        let server = try LoopbackHTTPServer { request in
            switch request.path {
            case "/body": .respondEndlessBody()
            case "/head": .respondEndlessHead()
            default: .stallMidHead()
            }
        }
        // Clients that send a request and never read: the server blocks writing, or waits.
        var sockets: [TCPSocket] = []
        for path in ["/body", "/head", "/stall"] {
            let socket = try TCPSocket.connect(host: "127.0.0.1", port: server.port)
            try socket.send(Array("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            sockets.append(socket)
        }
        let deadline = Date().addingTimeInterval(5)
        while server.requestCount < 3 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertEqual(server.requestCount, 3)
        let start = Date()
        server.stop()
        XCTAssertLessThan(Date().timeIntervalSince(start), 1, "stop() did not wait for the clients")
        for socket in sockets { socket.close() }
    }

    func testTheHTTPSServerSendsTheSameGeneratedResponses() throws {
        let server = try LoopbackHTTPSServer { request in
            request.path == "/endless" ? .respondEndlessBody() : .respondOversizedBody(bytes: 3 << 20)
        }
        defer { server.stop() }
        let trust = [
            "--cacert", server.certificateAuthority.certificateFile, "-o", "/dev/null", "-w", "%{size_download}",
        ]
        let endless = try curl(trust + ["--max-time", "1", "\(server.baseURL)/endless"])
        XCTAssertEqual(endless.exitCode, 28, endless.errorOutput)
        XCTAssertGreaterThan(Int(endless.output) ?? 0, 1 << 20)
        let oversized = try curl(trust + ["\(server.baseURL)/big"])
        XCTAssertEqual(oversized.exitCode, 0, oversized.errorOutput)
        XCTAssertEqual(oversized.output, "\(3 << 20)")
    }

    func testEmulatorFaultsBecomeTheGeneratedResponses() throws {
        let emulator = try EntraEmulator()
        defer { emulator.stop() }
        let token = "\(emulator.baseURL)/common/oauth2/v2.0/token"
        let trust = ["--cacert", emulator.certificateAuthority.certificateFile, "-o", "/dev/null", "-D", "-"]
        let post = ["-w", "size=%{size_download}", "--data", "grant_type=refresh_token&refresh_token=x", token]

        emulator.inject(.oversizedBody(bytes: 1_500_000), at: .token)
        let oversized = try curl(trust + post)
        XCTAssertEqual(oversized.exitCode, 0, oversized.errorOutput)
        XCTAssertTrue(oversized.output.hasSuffix("size=1500000"), oversized.output)
        XCTAssertTrue(oversized.output.lowercased().contains("x-ms-request-id:"), "Entra's headers are kept")

        emulator.inject(.oversizedBody(bytes: 70_000, chunked: true), at: .token)
        let chunked = try curl(trust + post)
        XCTAssertTrue(chunked.output.hasSuffix("size=70000"), chunked.output)
        XCTAssertTrue(chunked.output.lowercased().contains("transfer-encoding: chunked"), chunked.output)

        emulator.inject(.endlessBody, at: .token)
        let endless = try curl(trust + ["--max-time", "0.5"] + post)
        XCTAssertEqual(endless.exitCode, 28, endless.errorOutput)
        XCTAssertTrue(endless.output.hasPrefix("HTTP/1.1 200 OK"), endless.output)

        emulator.inject(.stallMidHeaders, at: .token)
        let stalled = try curl(trust + ["--max-time", "0.5"] + post)
        XCTAssertEqual(stalled.exitCode, 28, stalled.errorOutput)

        emulator.inject(.endlessHeaders, at: .token)
        let endlessHead = try curl(trust + ["--max-time", "2"] + post)
        XCTAssertNotEqual(endlessHead.exitCode, 0, "curl gives up on the head: too large or timed out")

        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken), 5, "each reached the emulator")
        XCTAssertEqual(emulator.pendingFaultCount, 0)
        let normal = try curl(trust + post)
        XCTAssertTrue(normal.output.hasPrefix("HTTP/1.1 400"), "then the emulator answers again: \(normal.output)")
    }
}
