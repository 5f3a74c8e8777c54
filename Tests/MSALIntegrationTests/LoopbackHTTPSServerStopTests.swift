import Foundation
import MSALNative
import MSALTestSupport
import XCTest

/// stop(): prompt with idle, half-open and waiting connections; the port is released.
final class LoopbackHTTPSServerStopTests: XCTestCase {
    func testStopIsPromptWithIdleAndWaitingClients() throws {
        let server = try LoopbackHTTPSServer { request in
            request.path == "/wait" ? .respondAfter(seconds: 30, .text("late")) : .respond(.text("ok"))
        }
        // TCP connections that never start TLS, TLS connections idle after a request (keep-alive),
        // and a request waiting for a delayed response.
        let silent = try (0..<5).map { _ in try TCPSocket.connect(host: "127.0.0.1", port: server.port) }
        let idle = try (0..<3).map { _ in try RawTLSClient(server: server) }
        for client in idle {
            XCTAssertEqual(try client.get("/").body, "ok")
        }
        let waiting = try RawTLSClient(server: server)
        try waiting.send("GET /wait HTTP/1.1\r\nHost: test\r\n\r\n")
        waitUntil { server.requestCount == 4 }

        let started = Date()
        server.stop()
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertLessThan(elapsed, 0.5)

        for client in idle + [waiting] {
            XCTAssertTrue(client.isClosedByServer())
        }
        for socket in silent {
            socket.setReceiveTimeout(seconds: 2)
            XCTAssertEqual(try socket.receive(), [])
        }
        XCTAssertThrowsError(try TCPSocket.connect(host: "127.0.0.1", port: server.port))
        server.stop()  // idempotent
    }

    func testReleasingTheServerStopsIt() throws {
        var server: LoopbackHTTPSServer? = try LoopbackHTTPSServer { _ in .respond(.text("ok")) }
        let port = try XCTUnwrap(server?.port)
        let idle = try TCPSocket.connect(host: "127.0.0.1", port: port)
        server = nil
        XCTAssertThrowsError(try TCPSocket.connect(host: "127.0.0.1", port: port))
        // Closed with EOF once accepted, or reset if the stop came before the accept.
        idle.setReceiveTimeout(seconds: 2)
        XCTAssertEqual((try? idle.receive()) ?? [], [])
    }

    func testNoSocketsLeakAcrossServers() throws {
        try serveOnce()  // Foundation's Process machinery opens descriptors of its own once
        let before = try openSockets()
        for _ in 0..<5 {
            try serveOnce()
        }
        XCTAssertEqual(try openSockets(), before)
    }

    private func serveOnce() throws {
        let server = try LoopbackHTTPSServer { _ in .respond(.text("ok")) }
        let client = try RawTLSClient(server: server)
        XCTAssertEqual(try client.get("/").body, "ok")
        let result = try CurlCommand.run([
            "--cacert", server.certificateAuthority.certificateFile, "\(server.baseURL)/",
        ])
        XCTAssertEqual(result.output, "ok")
        server.stop()
        XCTAssertTrue(client.isClosedByServer())
        client.connection.socket.close()
    }

    func testNoThreadsLeakAfterStop() throws {
        let before = try threadCount()
        for _ in 0..<3 {
            let server = try LoopbackHTTPSServer { _ in .respond(.text("ok")) }
            let clients = try (0..<20).map { _ in try RawTLSClient(server: server) }
            for client in clients {
                XCTAssertEqual(try client.get("/").body, "ok")
            }
            // One thread per connection; the runtime's own worker threads come and go meanwhile,
            // so a few fewer than 20 more may show.
            XCTAssertGreaterThanOrEqual(try threadCount(), before + 15)
            server.stop()
        }
        // Threads leave the group just before they exit: allow them a moment to be gone.
        let deadline = Date().addingTimeInterval(1)
        while try threadCount() > before + 1 && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        XCTAssertLessThanOrEqual(try threadCount(), before + 1)
    }

    private func threadCount() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count
    }

    /// The sockets this process has open (listening, accepted and client ends).
    private func openSockets() throws -> Set<String> {
        let folder = "/proc/self/fd"
        return Set(
            try FileManager.default.contentsOfDirectory(atPath: folder).compactMap { fd in
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\(fd)")
                return target?.hasPrefix("socket:") == true ? target : nil
            }
        )
    }

    private func waitUntil(timeout: Double = 2, _ condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.005)
        }
        XCTAssertTrue(condition())
    }
}
