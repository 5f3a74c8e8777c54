import Foundation
import MSALTestSupport
import XCTest

/// The loopback HTTPS server against the system curl: requests, bodies, keep-alive, concurrency,
/// and certificate verification by a real client.
final class LoopbackHTTPSServerTests: XCTestCase {
    /// Answers with what it received, as JSON.
    static let echo: @Sendable (HTTPServerRequest) -> HTTPServerAction = { request in
        .respond(
            .json([
                "method": request.method,
                "path": request.path,
                "target": request.target,
                "query": Dictionary(request.queryItems.map { ($0.name, $0.value ?? "") }) { first, _ in first },
                "body": request.bodyText,
                "header": request.header("x-test") ?? "",
                "connection": request.connectionNumber,
                "request": request.requestNumberOnConnection,
            ])
        )
    }

    private func curl(_ server: LoopbackHTTPSServer, _ arguments: [String]) throws -> CurlCommand.Result {
        try CurlCommand.run(["--cacert", server.certificateAuthority.certificateFile] + arguments)
    }

    private func json(_ text: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return try XCTUnwrap(object as? [String: Any], text)
    }

    func testGetWithQueryAndHeader() throws {
        let server = try LoopbackHTTPSServer(handler: Self.echo)
        defer { server.stop() }
        XCTAssertEqual(server.baseURL.absoluteString, "https://127.0.0.1:\(server.port)")
        let result = try curl(server, ["-H", "X-Test: yes", "\(server.baseURL)/a/b?x=1&y=two+words&z=%2F"])
        XCTAssertEqual(result.exitCode, 0, result.errorOutput)
        let echoed = try json(result.output)
        XCTAssertEqual(echoed["method"] as? String, "GET")
        XCTAssertEqual(echoed["path"] as? String, "/a/b")
        XCTAssertEqual(echoed["target"] as? String, "/a/b?x=1&y=two+words&z=%2F")
        XCTAssertEqual(echoed["query"] as? [String: String], ["x": "1", "y": "two words", "z": "/"])
        XCTAssertEqual(echoed["header"] as? String, "yes")
        XCTAssertEqual(server.requestCount, 1)
    }

    func testPostBodiesByLengthAndChunked() throws {
        let server = try LoopbackHTTPSServer(handler: Self.echo)
        defer { server.stop() }
        let form = try curl(server, ["-d", "grant_type=refresh_token&scope=a+b", "\(server.baseURL)/token"])
        XCTAssertEqual(form.exitCode, 0, form.errorOutput)
        let echoed = try json(form.output)
        XCTAssertEqual(echoed["method"] as? String, "POST")
        XCTAssertEqual(echoed["body"] as? String, "grant_type=refresh_token&scope=a+b")

        let chunked = try curl(
            server,
            ["-H", "Transfer-Encoding: chunked", "--data-binary", "chunked body", "\(server.baseURL)/upload"]
        )
        XCTAssertEqual(chunked.exitCode, 0, chunked.errorOutput)
        XCTAssertEqual(try json(chunked.output)["body"] as? String, "chunked body")

        // Over 1 MiB: curl sends `Expect: 100-continue` and waits for the interim response.
        let large = String(repeating: "x", count: 1_100_000)
        let bodyFile = FileManager.default.temporaryDirectory.appendingPathComponent("body-\(UUID()).txt")
        try Data(large.utf8).write(to: bodyFile)
        defer { try? FileManager.default.removeItem(at: bodyFile) }
        let big = try curl(server, ["--data-binary", "@\(bodyFile.path)", "\(server.baseURL)/big"])
        XCTAssertEqual(big.exitCode, 0, big.errorOutput)
        XCTAssertEqual((try json(big.output)["body"] as? String)?.count, large.count)
    }

    func testFormAndResponseConveniences() throws {
        let server = try LoopbackHTTPSServer { request in
            switch request.path {
            case "/form": .respond(.text(request.formValue("scope") ?? "-"))
            case "/redirect": .respond(.redirect(to: "/form"))
            case "/head": .respond(.text("not sent for HEAD"))
            default: .respond(.text(status: 404, "no route"))
            }
        }
        defer { server.stop() }
        let form = try curl(server, ["-d", "scope=openid+profile%20x", "\(server.baseURL)/form"])
        XCTAssertEqual(form.output, "openid profile x")
        let redirect = try curl(
            server, ["-o", "/dev/null", "-w", "%{http_code} %{redirect_url}", "\(server.baseURL)/redirect"])
        XCTAssertEqual(redirect.output, "302 \(server.baseURL)/form")
        let head = try curl(server, ["-I", "\(server.baseURL)/head"])
        XCTAssertEqual(head.exitCode, 0, head.errorOutput)
        XCTAssertTrue(head.output.lowercased().contains("content-length: 17"), head.output)
        let missing = try curl(server, ["-w", " %{http_code}", "\(server.baseURL)/nowhere"])
        XCTAssertEqual(missing.output, "no route 404")
    }

    func testKeepAliveReusesOneConnection() throws {
        let server = try LoopbackHTTPSServer(handler: Self.echo)
        defer { server.stop() }
        let url = server.baseURL.absoluteString
        let result = try curl(server, ["-w", "\n", "\(url)/1", "\(url)/2", "\(url)/3"])
        XCTAssertEqual(result.exitCode, 0, result.errorOutput)
        let responses = try result.output.split(separator: "\n").map { try json(String($0)) }
        XCTAssertEqual(responses.map { $0["request"] as? Int }, [1, 2, 3])
        XCTAssertEqual(responses.map { $0["connection"] as? Int }, [1, 1, 1])
        XCTAssertEqual(server.acceptedConnections, 1)
        XCTAssertEqual(server.requestCount, 3)
    }

    func testConnectionCloseAndHTTP10CloseTheConnection() throws {
        let server = try LoopbackHTTPSServer(handler: Self.echo)
        defer { server.stop() }
        let url = server.baseURL.absoluteString
        let close = try curl(server, ["-H", "Connection: close", "\(url)/1", "\(url)/2"])
        XCTAssertEqual(close.exitCode, 0, close.errorOutput)
        XCTAssertEqual(server.acceptedConnections, 2)
        let http10 = try curl(server, ["--http1.0", "\(url)/1", "\(url)/2"])
        XCTAssertEqual(http10.exitCode, 0, http10.errorOutput)
        XCTAssertEqual(server.acceptedConnections, 4)
        XCTAssertEqual(server.requestCount, 4)
    }

    func testManyConcurrentCurlClients() throws {
        let server = try LoopbackHTTPSServer { request in
            .respond(.text("answer \(request.path.dropFirst())\n"))
        }
        defer { server.stop() }
        let count = 60
        let urls = (1...count).map { "\(server.baseURL)/\($0)" }
        // One curl process, 60 transfers at once: 60 simultaneous TLS connections.
        let result = try curl(
            server,
            ["--parallel", "--parallel-immediate", "--parallel-max", "\(count)"] + urls
        )
        XCTAssertEqual(result.exitCode, 0, result.errorOutput)
        let answers = Set(result.output.split(separator: "\n").map(String.init))
        XCTAssertEqual(answers, Set((1...count).map { "answer \($0)" }))
        XCTAssertEqual(server.requestCount, count)
        XCTAssertGreaterThan(server.acceptedConnections, 1)
    }

    func testTwoHundredConnectionsOpenAtOnce() throws {
        let server = try LoopbackHTTPSServer { request in .respond(.text(request.path)) }
        defer { server.stop() }
        let clients = try (0..<200).map { _ in try RawTLSClient(server: server) }
        for (index, client) in clients.enumerated() {
            try client.send("GET /\(index) HTTP/1.1\r\nHost: test\r\n\r\n")
        }
        for (index, client) in clients.enumerated() {
            let response = try client.readResponse()
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.body, "/\(index)")
        }
        XCTAssertEqual(server.acceptedConnections, 200)
        XCTAssertEqual(server.requestCount, 200)
    }

    func testTwoServersAtOnceOnIPv4AndIPv6() throws {
        let first = try LoopbackHTTPSServer { _ in .respond(.text("first")) }
        defer { first.stop() }
        let second: LoopbackHTTPSServer
        do {
            second = try LoopbackHTTPSServer(host: "::1", certificateAuthority: first.certificateAuthority) { _ in
                .respond(.text("second"))
            }
        } catch {
            throw XCTSkip("no IPv6 loopback here: \(error)")
        }
        defer { second.stop() }
        XCTAssertEqual(second.baseURL.absoluteString, "https://[::1]:\(second.port)")
        XCTAssertEqual(try curl(first, ["\(first.baseURL)/"]).output, "first")
        let v6 = try curl(second, ["-g", "\(second.baseURL)/"])
        XCTAssertEqual(v6.output, "second", v6.errorOutput)
        XCTAssertEqual(first.requestCount, 1)
        XCTAssertEqual(second.requestCount, 1)
    }

    func testLocalhostAndAChosenPort() throws {
        let probe = try LoopbackHTTPSServer { _ in .respond(.text("probe")) }
        let port = probe.port
        probe.stop()
        let server = try LoopbackHTTPSServer(host: "localhost", port: port) { _ in .respond(.text("fixed")) }
        defer { server.stop() }
        XCTAssertEqual(server.port, port)
        XCTAssertEqual(server.baseURL.absoluteString, "https://localhost:\(port)")
        let result = try curl(server, ["\(server.baseURL)/"])
        XCTAssertEqual(result.output, "fixed", result.errorOutput)
    }
}

final class HTTPServerRequestTargetTests: XCTestCase {
    func testRawSchemeInTheQueryDoesNotChangeThePath() {
        let request = HTTPServerRequest(
            method: "GET", target: "/cb?redirect_uri=http://localhost:1/x&code=1", headers: [:], body: Data())
        XCTAssertEqual(request.path, "/cb")
        let absolute = HTTPServerRequest(method: "GET", target: "https://host/p/q?x=1", headers: [:], body: Data())
        XCTAssertEqual(absolute.path, "/p/q")
    }
}
