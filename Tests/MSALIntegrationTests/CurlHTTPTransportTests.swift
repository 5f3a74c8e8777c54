import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// The libcurl transport against a real loopback HTTPS server with a throwaway CA.
final class CurlHTTPTransportTests: XCTestCase {
    private var authority: TestCertificateAuthority!

    override func setUpWithError() throws {
        authority = try TestCertificateAuthority()
    }

    override func tearDown() {
        authority = nil
    }

    // MARK: Helpers

    private func makeServer(
        certificate: TestServerCertificate? = nil,
        handler: @escaping @Sendable (HTTPServerRequest) -> HTTPServerAction
    ) throws -> LoopbackHTTPSServer {
        try LoopbackHTTPSServer(certificateAuthority: authority, certificate: certificate, handler: handler)
    }

    private func makeTransport(
        caFile: String? = nil,
        timeout: Double? = nil,
        retries: Int = 1,
        maximumBodySize: Int? = nil
    ) throws -> CurlHTTPTransport {
        CurlHTTPTransport(
            configuration: .init(
                caFile: caFile ?? authority.certificateFile,
                retryPolicy: RetryPolicy(retryCount: retries, retryInterval: 0.01),
                timeout: timeout,
                maximumResponseBodySize: maximumBodySize
            )
        )
    }

    private func url(_ server: LoopbackHTTPSServer, _ path: String) -> URL {
        server.baseURL.appendingPathComponent(path)
    }

    /// Sends `request` and returns the `NSURLErrorDomain` code it failed with.
    private func failureCode(
        _ transport: CurlHTTPTransport,
        _ request: HTTPRequest,
        file: StaticString = #filePath,
        line: UInt = #line
    ) async -> Int? {
        do {
            let response = try await transport.send(request)
            XCTFail("expected a failure, got HTTP \(response.statusCode)", file: file, line: line)
            return nil
        } catch {
            let nsError = error as NSError
            XCTAssertEqual(nsError.domain, NSURLErrorDomain, file: file, line: line)
            return nsError.code
        }
    }

    private static let okResponse = HTTPServerResponse.json(status: 200, data: Data(#"{"ok":true}"#.utf8))
    private static let ok: HTTPServerAction = .respond(okResponse)

    // MARK: Success

    func testTrustedCertificateSucceedsAndClientHeadersAreSent() async throws {
        let seen = Locked<HTTPServerRequest?>(nil)
        let server = try makeServer { request in
            seen.withLock { $0 = request }
            return Self.ok
        }
        defer { server.stop() }
        let id = UUID()
        let response = try await makeTransport().send(HTTPRequest(url: url(server, "hello"), correlationId: id))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), #"{"ok":true}"#)
        XCTAssertEqual(response.headers["content-type"]?.hasPrefix("application/json"), true)
        let request = try XCTUnwrap(seen.withLock { $0 })
        XCTAssertEqual(request.method, "GET")
        XCTAssertEqual(request.path, "/hello")
        XCTAssertEqual(request.header("client-request-id"), id.uuidString)
        XCTAssertEqual(request.header("return-client-request-id"), "true")
        XCTAssertEqual(request.header("x-client-SKU"), "MSAL.Linux.Swift")
        XCTAssertEqual(request.header("x-client-CPU"), "64")
        XCTAssertNotNil(request.header("x-client-OS"))
        XCTAssertEqual(request.header("Accept"), "application/json")
    }

    func testFormPostArrivesEncoded() async throws {
        let body = Locked<String>("")
        let server = try makeServer { request in
            body.withLock { $0 = String(decoding: request.body, as: UTF8.self) }
            XCTAssertEqual(request.header("content-type"), "application/x-www-form-urlencoded")
            return Self.ok
        }
        defer { server.stop() }
        let parameters = [("grant_type", "refresh_token"), ("scope", "openid profile https://x/.default")]
        _ = try await makeTransport().send(.formPost(url: url(server, "token"), parameters: parameters))
        let decoded = try XCTUnwrap(FormURLEncoding.decode(body.withLock { $0 }))
        XCTAssertEqual(decoded.map(\.value), parameters.map(\.1))
    }

    func testLargeResponseArrivesWholeUnderARaisedLimit() async throws {
        var pattern = Data(count: 8 << 20)
        pattern.withUnsafeMutableBytes { bytes in
            for index in stride(from: 0, to: bytes.count, by: 4096) {
                bytes[index] = UInt8(truncatingIfNeeded: index >> 12)
            }
        }
        let payload = pattern
        let server = try makeServer { _ in .respond(HTTPServerResponse(status: 200, body: payload)) }
        defer { server.stop() }
        let response = try await makeTransport(maximumBodySize: 8 << 20).send(HTTPRequest(url: url(server, "big")))
        XCTAssertEqual(response.body.count, payload.count)
        XCTAssertEqual(response.body, payload)
    }

    func testConnectToServesARealHostNameFromLoopbackWithTLSVerified() async throws {
        let certificate = try authority.issueCertificate(dnsNames: ["login.microsoftonline.com"], ipAddresses: [])
        let seenHost = Locked<String?>(nil)
        let server = try makeServer(certificate: certificate) { request in
            seenHost.withLock { $0 = request.header("Host") }
            return Self.ok
        }
        defer { server.stop() }
        let transport = CurlHTTPTransport(
            configuration: .init(
                caFile: authority.certificateFile,
                connectTo: ["login.microsoftonline.com:443:127.0.0.1:\(server.port)"],
                retryPolicy: RetryPolicy(retryCount: 0)
            )
        )
        let target = try XCTUnwrap(URL(string: "https://login.microsoftonline.com/common/discovery/instance"))
        let response = try await transport.send(HTTPRequest(url: target))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(seenHost.withLock { $0 }, "login.microsoftonline.com")
    }

    func testStandardProxyVariablesAreHonoured() async throws {
        let server = try makeServer { _ in Self.ok }
        let proxy = try ConnectProxy()
        defer {
            server.stop()
            proxy.stop()
        }
        let names = ["https_proxy", "HTTPS_PROXY", "no_proxy", "NO_PROXY", "all_proxy", "ALL_PROXY"]
        let saved = names.map { ($0, ProcessInfo.processInfo.environment[$0]) }
        defer {
            for (name, value) in saved {
                if let value { setenv(name, value, 1) } else { unsetenv(name) }
            }
        }
        for name in names { unsetenv(name) }
        setenv("https_proxy", "http://127.0.0.1:\(proxy.port)", 1)

        let transport = try makeTransport(retries: 0)
        let viaProxy = try await transport.send(HTTPRequest(url: url(server, "proxied")))
        XCTAssertEqual(viaProxy.statusCode, 200)
        XCTAssertEqual(proxy.tunnels, ["127.0.0.1:\(server.port)"])

        setenv("no_proxy", "127.0.0.1", 1)
        let direct = try await makeTransport(retries: 0).send(HTTPRequest(url: url(server, "direct")))
        XCTAssertEqual(direct.statusCode, 200)
        XCTAssertEqual(proxy.tunnels.count, 1)
        XCTAssertEqual(server.requestCount, 2)
    }

    func testLogsCarryTheCorrelationIdAndNoSecrets() async throws {
        let server = try makeServer { _ in .respond(HTTPServerResponse(status: 500, body: Data())) }
        defer { server.stop() }
        let lines = Locked<[String]>([])
        let logger = MSALGlobalConfig.loggerConfig
        let savedLevel = logger.logLevel
        logger.logLevel = .verbose
        logger.setLogCallback { _, message, _ in lines.withLock { $0.append(message ?? "") } }
        defer {
            logger.removeLogCallback()
            logger.logLevel = savedLevel
        }
        let id = UUID()
        let secret = "0.AXYZ-refresh-token-value-that-must-not-leak"
        var target = url(server, "tenant/oauth2/v2.0/token")
        target.append(queryItems: [URLQueryItem(name: "code", value: "auth-code-secret")])
        let request = HTTPRequest.formPost(url: target, parameters: [("refresh_token", secret)], correlationId: id)
        _ = try await makeTransport().send(request)
        let logged = lines.withLock { $0 }
        XCTAssertGreaterThanOrEqual(logged.count, 4)
        for line in logged {
            XCTAssertTrue(line.contains(id.uuidString), line)
            XCTAssertFalse(line.contains(secret), line)
            XCTAssertFalse(line.contains("auth-code-secret"), line)
        }
    }

    // MARK: Response limits

    func testBodyOfExactlyTheLimitArrivesAndOneByteMoreIsRefusedWithOrWithoutALength() async throws {
        let server = try makeServer { request in
            let size = request.path.hasSuffix("over") ? 4097 : 4096
            return .respondOversizedBody(bytes: size, chunked: request.path.hasPrefix("/chunked"))
        }
        defer { server.stop() }
        let transport = try makeTransport(maximumBodySize: 4096)
        for framing in ["length", "chunked"] {
            let fits = try await transport.send(HTTPRequest(url: url(server, "\(framing)")))
            XCTAssertEqual(fits.body.count, 4096, framing)
            let code = await failureCode(transport, HTTPRequest(url: url(server, "\(framing)-over")))
            XCTAssertEqual(code, -1103, framing)
        }
        XCTAssertEqual(server.requestCount, 4, "a refused response is not retried")
    }

    func testTheLimitIsReadFromTheGlobalConfigurationAtEachRequest() async throws {
        defer { MSALGlobalConfig.httpConfig.maximumResponseBodySize = 1 << 20 }
        XCTAssertEqual(MSALGlobalConfig.httpConfig.maximumResponseBodySize, 1_048_576, "the documented default")
        let server = try makeServer { _ in .respondOversizedBody(bytes: 2 << 20) }
        defer { server.stop() }
        let transport = try makeTransport()
        let refused = await failureCode(transport, HTTPRequest(url: url(server, "two-mib")))
        XCTAssertEqual(refused, -1103)
        MSALGlobalConfig.httpConfig.maximumResponseBodySize = 3 << 20
        let response = try await transport.send(HTTPRequest(url: url(server, "two-mib")))
        XCTAssertEqual(response.body.count, 2 << 20)
        MSALGlobalConfig.httpConfig.maximumResponseBodySize = 0
        XCTAssertEqual(MSALGlobalConfig.httpConfig.maximumResponseBodySize, 1 << 20, "0 restores the default")
    }

    func testRefusalNamesTheLimitAndTheURLWithoutItsQuery() async throws {
        let server = try makeServer { _ in .respondEndlessBody() }
        defer { server.stop() }
        do {
            _ = try await makeTransport(maximumBodySize: 10_000).send(
                HTTPRequest(url: URL(string: "\(server.baseURL)/endless?code=secret-code")!))
            XCTFail("an endless body was accepted")
        } catch {
            let error = error as NSError
            XCTAssertEqual(error.code, -1103)
            XCTAssertEqual(error.code, URLError.Code.dataLengthExceedsMaximum.rawValue)
            XCTAssertEqual(error.userInfo[MSALCurlErrorCodeKey] as? Int, 63)
            let description = error.localizedDescription
            XCTAssertTrue(description.contains("\(server.baseURL)/endless"), description)
            XCTAssertTrue(description.contains("10000 bytes"), description)
            XCTAssertTrue(description.contains("maximumResponseBodySize"), description)
            XCTAssertFalse(description.contains("secret-code"), description)
        }
    }

    func testHeadersOverTheirLimitAreRefused() async throws {
        let server = try makeServer { request in
            if request.path == "/endless" { return .respondEndlessHead() }
            if request.path == "/small" { return .respond(.json(["ok": true])) }
            var headers = HTTPServerHeaders()
            for index in 0..<700 { headers.add("X-Many-\(index)", String(repeating: "h", count: 90)) }
            return .respond(HTTPServerResponse(headers: headers, body: Data("{}".utf8)))
        }
        defer { server.stop() }
        let transport = try makeTransport()
        for path in ["endless", "many"] {
            do {
                _ = try await transport.send(HTTPRequest(url: url(server, path)))
                XCTFail("\(path): headers over 64 KiB were accepted")
            } catch {
                let error = error as NSError
                XCTAssertEqual(error.code, -1103, "\(path): \(error)")
                XCTAssertTrue(error.localizedDescription.contains("65536 bytes"), error.localizedDescription)
            }
        }
        XCTAssertEqual(server.requestCount, 2)
        let small = try await transport.send(HTTPRequest(url: url(server, "small")))
        XCTAssertEqual(small.statusCode, 200, "the server and the transport go on")
    }

    // MARK: TLS failures

    func testCertificateFromUnknownAuthorityIsUntrusted() async throws {
        let server = try makeServer { _ in Self.ok }
        defer { server.stop() }
        let otherAuthority = try TestCertificateAuthority()
        let transport = try makeTransport(caFile: otherAuthority.certificateFile)
        let code = await failureCode(transport, HTTPRequest(url: url(server, "x")))
        XCTAssertEqual(code, URLError.Code.serverCertificateUntrusted.rawValue)
        XCTAssertEqual(server.requestCount, 0)
    }

    func testSystemTrustStoreRejectsThrowawayAuthority() async throws {
        let server = try makeServer { _ in Self.ok }
        defer { server.stop() }
        let transport = CurlHTTPTransport(configuration: .init(retryPolicy: RetryPolicy(retryCount: 0)))
        let code = await failureCode(transport, HTTPRequest(url: url(server, "x")))
        XCTAssertEqual(code, URLError.Code.serverCertificateUntrusted.rawValue)
    }

    func testWrongHostNameIsUntrusted() async throws {
        let certificate = try authority.issueCertificate(dnsNames: ["other.example"], ipAddresses: [])
        let server = try makeServer(certificate: certificate) { _ in Self.ok }
        defer { server.stop() }
        let code = await failureCode(try makeTransport(), HTTPRequest(url: url(server, "x")))
        XCTAssertEqual(code, URLError.Code.serverCertificateUntrusted.rawValue)
        XCTAssertEqual(server.requestCount, 0)
    }

    func testExpiredCertificateHasBadDate() async throws {
        let certificate = try authority.issueCertificate(
            notBefore: Date().addingTimeInterval(-7200),
            notAfter: Date().addingTimeInterval(-3600)
        )
        let server = try makeServer(certificate: certificate) { _ in Self.ok }
        defer { server.stop() }
        let code = await failureCode(try makeTransport(), HTTPRequest(url: url(server, "x")))
        XCTAssertEqual(code, URLError.Code.serverCertificateHasBadDate.rawValue)
    }

    // MARK: Network failures

    func testConnectionRefusedCannotConnect() async throws {
        let server = try makeServer { _ in Self.ok }
        let closedURL = url(server, "x")
        server.stop()
        let code = await failureCode(try makeTransport(), HTTPRequest(url: closedURL))
        XCTAssertEqual(code, URLError.Code.cannotConnectToHost.rawValue)
    }

    func testUnknownHostCannotBeFound() async throws {
        let transport = try makeTransport()
        let code = await failureCode(transport, HTTPRequest(url: URL(string: "https://nothing-here.invalid/x")!))
        XCTAssertEqual(code, URLError.Code.cannotFindHost.rawValue)
    }

    func testStalledServerTimesOutAndIsRetriedOnce() async throws {
        let server = try makeServer { _ in .respondAfter(seconds: 3, Self.okResponse) }
        defer { server.stop() }
        let start = Date()
        let code = await failureCode(try makeTransport(timeout: 0.3), HTTPRequest(url: url(server, "slow")))
        XCTAssertEqual(code, URLError.Code.timedOut.rawValue)
        XCTAssertLessThan(Date().timeIntervalSince(start), 2.5)
        XCTAssertEqual(server.requestCount, 2)
    }

    func testDroppedConnectionIsLostAndRetriedOnce() async throws {
        let server = try makeServer { _ in .closeConnection }
        defer { server.stop() }
        let code = await failureCode(try makeTransport(), HTTPRequest(url: url(server, "drop")))
        XCTAssertEqual(code, URLError.Code.networkConnectionLost.rawValue)
        XCTAssertEqual(server.requestCount, 2)
    }

    func testConnectionLostMidResponse() async throws {
        let body = Data(repeating: 0x61, count: 10_000)
        let server = try makeServer { _ in .respondPartially(HTTPServerResponse(status: 200, body: body), bytes: 2_000)
        }
        defer { server.stop() }
        let code = await failureCode(try makeTransport(retries: 0), HTTPRequest(url: url(server, "partial")))
        XCTAssertEqual(code, URLError.Code.networkConnectionLost.rawValue)
    }

    func testMalformedHTTPIsABadServerResponseAndTheServerKeepsServing() async throws {
        let calls = Locked(0)
        let server = try makeServer { _ in
            let call = calls.withLock { value -> Int in
                value += 1
                return value
            }
            return call == 1 ? .respondRaw(Data("NOT HTTP AT ALL\r\n\r\n".utf8), close: true) : Self.ok
        }
        defer { server.stop() }
        let transport = try makeTransport()
        let code = await failureCode(transport, HTTPRequest(url: url(server, "garbage")))
        XCTAssertEqual(code, URLError.Code.badServerResponse.rawValue)
        let response = try await transport.send(HTTPRequest(url: url(server, "fine")))
        XCTAssertEqual(response.statusCode, 200)
    }

    // MARK: Retry

    func testServerErrorIsRetriedOnceThenSurfaced() async throws {
        let server = try makeServer { _ in .respond(.json(status: 503, data: Data(#"{"error":"busy"}"#.utf8))) }
        defer { server.stop() }
        let response = try await makeTransport().send(HTTPRequest(url: url(server, "busy")))
        XCTAssertEqual(response.statusCode, 503)
        XCTAssertEqual(server.requestCount, 2)
    }

    func testServerErrorThenSuccess() async throws {
        let calls = Locked(0)
        let server = try makeServer { _ in
            let call = calls.withLock { value -> Int in
                value += 1
                return value
            }
            return call == 1 ? .respond(HTTPServerResponse(status: 500, body: Data())) : Self.ok
        }
        defer { server.stop() }
        let response = try await makeTransport().send(HTTPRequest(url: url(server, "flaky")))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(server.requestCount, 2)
    }

    func testTooManyRequestsAndClientErrorsAreNotRetried() async throws {
        for status in [429, 400, 401] {
            let server = try makeServer { _ in
                .respond(HTTPServerResponse(status: status, headers: ["Retry-After": "7"], body: Data()))
            }
            defer { server.stop() }
            let response = try await makeTransport().send(HTTPRequest(url: url(server, "limited")))
            XCTAssertEqual(response.statusCode, status)
            XCTAssertEqual(response.headers["retry-after"], "7")
            XCTAssertEqual(server.requestCount, 1, "\(status)")
        }
    }

    // MARK: Connections and concurrency

    func testSequentialRequestsReuseOneConnection() async throws {
        let server = try makeServer { _ in Self.ok }
        defer { server.stop() }
        let transport = try makeTransport()
        var newConnections = 0
        for index in 0..<100 {
            let request = HTTPRequest.formPost(url: url(server, "token"), parameters: [("n", "\(index)")])
            newConnections += try await transport.send(request).newConnections
        }
        XCTAssertEqual(server.acceptedConnections, 1)
        XCTAssertEqual(newConnections, 1)
        XCTAssertEqual(server.requestCount, 100)
    }

    func testTwoHundredConcurrentRequestsAllGetTheirOwnAnswer() async throws {
        let server = try makeServer { request in
            .respond(HTTPServerResponse(status: 200, body: request.body))
        }
        defer { server.stop() }
        let transport = try makeTransport()
        let target = url(server, "echo")
        try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<200 {
                group.addTask {
                    let response = try await transport.send(
                        HTTPRequest(method: .post, url: target, body: Array("request-\(index)".utf8))
                    )
                    return (index, String(decoding: response.body, as: UTF8.self))
                }
            }
            var answered = 0
            for try await (index, body) in group {
                XCTAssertEqual(body, "request-\(index)")
                answered += 1
            }
            XCTAssertEqual(answered, 200)
        }
        XCTAssertEqual(server.requestCount, 200)
    }

    func testCancellationAbortsTheTransferPromptly() async throws {
        let server = try makeServer { _ in .respondAfter(seconds: 5, Self.okResponse) }
        defer { server.stop() }
        let transport = try makeTransport()
        let target = url(server, "slow")
        let task = Task { try await transport.send(HTTPRequest(url: target)) }
        try await Task.sleep(for: .milliseconds(150))
        let start = Date()
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("expected cancellation")
        } catch {
            let nsError = error as NSError
            XCTAssertEqual(nsError.domain, NSURLErrorDomain)
            XCTAssertEqual(nsError.code, URLError.Code.cancelled.rawValue)
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 1)
    }

    func testAlreadyCancelledTaskDoesNotSend() async throws {
        let server = try makeServer { _ in Self.ok }
        defer { server.stop() }
        let transport = try makeTransport()
        let target = url(server, "never")
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(HTTPRequest(url: target))
        }
        do {
            _ = try await task.value
            XCTFail("expected cancellation")
        } catch {
            XCTAssertEqual((error as NSError).code, URLError.Code.cancelled.rawValue)
        }
        XCTAssertEqual(server.requestCount, 0)
    }
}
