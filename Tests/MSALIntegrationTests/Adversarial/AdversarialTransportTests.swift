import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// A hostile or careless server against the transport, through a real application: answers that
/// never end or are far too large, a head that stalls or never ends, a discovery document that
/// sends the refresh token to a plain-HTTP listener, and certificates refused with Apple's
/// `NSURLErrorDomain` numbers. Each case checks the app's error, what the server received, and
/// that the cache file is unchanged.
final class AdversarialTransportTests: FaultSuiteCase {
    override func tearDownWithError() throws {
        MSALGlobalConfig.httpConfig.timeoutIntervalForRequest = 300
        try super.tearDownWithError()
    }

    // MARK: Bounded responses

    func testEndlessBodyEndsAtTheLimitWithBoundedMemory() async throws {
        try await assertRefusedAsTooLarge(.endlessBody)
    }

    func testBodyOf200MBAnnouncedByItsLengthIsRefusedWithBoundedMemory() async throws {
        try await assertRefusedAsTooLarge(.oversizedBody(bytes: 200_000_000))
    }

    func testBodyOf200MBInChunksIsRefusedWhileReceivingWithBoundedMemory() async throws {
        try await assertRefusedAsTooLarge(.oversizedBody(bytes: 200_000_000, chunked: true))
    }

    func testEndlessHeadIsRefusedAtTheHeaderLimit() async throws {
        try await assertRefusedAsTooLarge(.endlessHeaders)
    }

    func testHeadStalledMidwayEndsAtTheConfiguredTimeout() async throws {
        let first = try await signIn()
        let before = CacheSnapshot.read(cacheFile)
        MSALGlobalConfig.httpConfig.timeoutIntervalForRequest = 1
        let refreshes = emulator.tokenRequestCount(grantType: .refreshToken)
        emulator.inject(.stallMidHeaders, at: .token, count: 2, grantType: .refreshToken)
        let start = Date()
        await assertFailure(domain: NSURLErrorDomain, code: -1001) {
            _ = try await self.app.application.acquireTokenSilent(with: self.silent(first.account, force: true))
        }
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertGreaterThanOrEqual(elapsed, 1.9, "two attempts of a second each")
        XCTAssertLessThan(elapsed, 4)
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken), refreshes + 2, "a timeout is retried once")
        assertCacheUnchanged(since: before)
    }

    /// How much the process may grow while refusing an answer of 200 MB or more: a few MiB. Under
    /// AddressSanitizer (`MSAL_SANITIZER=address`, set by scripts/sanitizers.sh) freed memory is
    /// held in quarantine and every allocation has shadow memory and red zones, so the same
    /// buffers weigh several times more (7 to 9 MiB measured, against 0.1 to 1.2 MiB without).
    static let memoryBound =
        ProcessInfo.processInfo.environment["MSAL_SANITIZER"] == "address" ? 32 << 20 : 6 << 20

    /// A refresh answered with `fault` fails with -1103 within a second of the limit, is not
    /// retried, and the process grows by less than ``memoryBound`` while receiving it.
    private func assertRefusedAsTooLarge(
        _ fault: EmulatorFault, file: StaticString = #filePath, line: UInt = #line
    ) async throws {
        let first = try await signIn()
        let before = CacheSnapshot.read(cacheFile)
        // The code before bounds existed read until the request timed out: keep that short.
        MSALGlobalConfig.httpConfig.timeoutIntervalForRequest = 8
        let refreshes = emulator.tokenRequestCount(grantType: .refreshToken)
        emulator.inject(fault, at: .token, count: 2, grantType: .refreshToken)
        let memory = ProcessMemory.startMeasuring()
        let start = Date()
        let error = await assertFailure(domain: NSURLErrorDomain, code: -1103, file: file, line: line) {
            _ = try await self.app.application.acquireTokenSilent(with: self.silent(first.account, force: true))
        }
        let elapsed = Date().timeIntervalSince(start)
        let growth = memory.growth()
        XCTAssertLessThan(elapsed, 1, "refused as soon as the limit was passed", file: file, line: line)
        XCTAssertLessThan(growth, Self.memoryBound, "the process grew by \(growth >> 10) KiB", file: file, line: line)
        XCTAssertEqual(
            emulator.tokenRequestCount(grantType: .refreshToken), refreshes + 1, "never retried", file: file, line: line
        )
        let description = error?.localizedDescription ?? ""
        XCTAssertTrue(description.contains("https://login.microsoftonline.com/"), description, file: file, line: line)
        XCTAssertTrue(description.contains(" bytes"), "names the limit: \(description)", file: file, line: line)
        XCTAssertEqual(emulator.pendingFaultCount, 1, file: file, line: line)
        emulator.clearFaults()
        assertCacheUnchanged(since: before, file: file, line: line)
        // The refresh token still works once the server behaves.
        remember(try await app.application.acquireTokenSilent(with: silent(first.account, force: true)))
    }

    // MARK: No credential over plain HTTP

    func testRefreshTokenIsNeverSentToAPlainHTTPTokenEndpoint() async throws {
        let received = Locked<[HTTPServerRequest]>([])
        let listener = try LoopbackHTTPServer { request in
            received.withLock { $0.append(request) }
            return .respond(.json(status: 400, ["error": "invalid_grant"]))
        }
        defer { listener.stop() }
        let first = try await signIn()
        let tenant = try XCTUnwrap(first.account.homeAccountId?.tenantId)
        let before = CacheSnapshot.read(cacheFile)
        // A day later the discovery documents have expired; the next one names a plain-HTTP
        // loopback token endpoint (a proxy rewriting the answer, a poisoned cache upstream).
        app.advance(by: 25 * 3600)
        let document = try await openIDConfiguration(tenant: tenant)
        var poisoned = document
        poisoned["token_endpoint"] = "\(listener.baseURL)/\(tenant)/oauth2/v2.0/token"
        emulator.inject(
            .response(status: 200, body: try JSONSerialization.data(withJSONObject: poisoned)),
            at: .openIDConfiguration)
        do {
            _ = try await app.application.acquireTokenSilent(with: silent(first.account, force: true))
            XCTFail("the refresh succeeded through a plain-HTTP token endpoint")
        } catch {
            let error = error as NSError
            // The transport's wall (-1022), unless discovery already refused the document (-42600).
            let refusedByTransport = error.domain == NSURLErrorDomain && error.code == -1022
            let refusedByDiscovery =
                error.domain == MSALErrorDomain && error.userInfo[MSALInternalErrorCodeKey] as? Int == -42600
            XCTAssertTrue(refusedByTransport || refusedByDiscovery, "\(error)")
        }
        XCTAssertEqual(listener.acceptedConnections, 0, "not one byte reached the plain listener")
        XCTAssertTrue(received.withLock { $0.isEmpty })
        assertCacheUnchanged(since: before)
    }

    /// The emulator's OpenID configuration for `tenant`, fetched as the library would.
    private func openIDConfiguration(tenant: String) async throws -> [String: Any] {
        let transport = CurlHTTPTransport(
            configuration: .init(caFile: emulator.certificateAuthority.certificateFile, connectTo: emulator.connectTo))
        let url = try XCTUnwrap(
            URL(string: "https://login.microsoftonline.com/\(tenant)/v2.0/.well-known/openid-configuration"))
        let response = try await transport.send(HTTPRequest(url: url))
        XCTAssertEqual(response.statusCode, 200)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: response.body) as? [String: Any])
    }

    // MARK: Apple's numbers

    func testUntrustedCertificateIsApplesMinus1202() async throws {
        try await assertRefusedCertificate(nil, code: -1202, URLError.Code.serverCertificateUntrusted)
    }

    func testExpiredCertificateIsApplesMinus1201() async throws {
        let expired = try emulator.certificateAuthority.issueCertificate(
            dnsNames: ["login.microsoftonline.com"], notBefore: Date(timeIntervalSinceNow: -2 * 86400),
            notAfter: Date(timeIntervalSinceNow: -86400))
        try await assertRefusedCertificate(expired, code: -1201, URLError.Code.serverCertificateHasBadDate)
    }

    func testNotYetValidCertificateIsApplesMinus1204() async throws {
        let early = try emulator.certificateAuthority.issueCertificate(
            dnsNames: ["login.microsoftonline.com"], notBefore: Date(timeIntervalSinceNow: 86400),
            notAfter: Date(timeIntervalSinceNow: 2 * 86400))
        try await assertRefusedCertificate(early, code: -1204, URLError.Code.serverCertificateNotYetValid)
    }

    /// The emulator's host names routed to a server presenting `certificate` (or one from an
    /// unknown authority): the refresh fails with Apple's `code`, which `URLError.Code` agrees with.
    private func assertRefusedCertificate(
        _ certificate: TestServerCertificate?, code: Int, _ urlErrorCode: URLError.Code,
        file: StaticString = #filePath, line: UInt = #line
    ) async throws {
        let impostor = try LoopbackHTTPSServer(certificate: certificate) { _ in .respond(.text("never reached")) }
        defer { impostor.stop() }
        let first = try await signIn()
        let before = CacheSnapshot.read(cacheFile)
        let requests = emulator.totalRequestCount
        let routes = emulator.connectTo.map { route in
            route.split(separator: ":").dropLast().joined(separator: ":") + ":\(impostor.port)"
        }
        let application = try makeApp(connectTo: routes).application
        let error = await assertFailure(domain: NSURLErrorDomain, code: code, file: file, line: line) {
            _ = try await application.acquireTokenSilent(with: self.silent(first.account, force: true))
        }
        XCTAssertEqual(error?.code, urlErrorCode.rawValue, file: file, line: line)
        XCTAssertEqual(error.map { URLError.Code(rawValue: $0.code) }, urlErrorCode, file: file, line: line)
        XCTAssertEqual(impostor.requestCount, 0, "no request crossed the refused handshake", file: file, line: line)
        XCTAssertEqual(emulator.totalRequestCount, requests, file: file, line: line)
        assertCacheUnchanged(since: before, file: file, line: line)
    }
}

/// The transport's own refusal to send a credential over plain HTTP, against a plain listener
/// that records every connection: nothing reaches it unless the app configured its origin.
final class AdversarialPlainHTTPTransportTests: XCTestCase {
    private var listener: LoopbackHTTPServer!
    private let received = Locked<[HTTPServerRequest]>([])

    override func setUpWithError() throws {
        let received = received
        listener = try LoopbackHTTPServer { request in
            received.withLock { $0.append(request) }
            return .respond(.json(["ok": true]))
        }
    }

    override func tearDown() {
        listener.stop()
    }

    private func url(_ path: String) throws -> URL {
        try XCTUnwrap(URL(string: "\(listener.baseURL)\(path)"))
    }

    private func transport() throws -> CurlHTTPTransport {
        CurlHTTPTransport(configuration: .init(retryPolicy: RetryPolicy(retryCount: 1, retryInterval: 0.01)))
    }

    /// Sends `request` and asserts it is refused with -1022 before connecting.
    private func assertRefused(
        _ request: HTTPRequest, by transport: CurlHTTPTransport, file: StaticString = #filePath, line: UInt = #line
    ) async {
        do {
            let response = try await transport.send(request)
            XCTFail("sent over plain HTTP (HTTP \(response.statusCode))", file: file, line: line)
        } catch {
            let error = error as NSError
            XCTAssertEqual(error.domain, NSURLErrorDomain, "\(error)", file: file, line: line)
            XCTAssertEqual(error.code, -1022, "\(error)", file: file, line: line)
            XCTAssertEqual(error.code, URLError.Code.appTransportSecurityRequiresSecureConnection.rawValue)
            let description = error.localizedDescription
            XCTAssertTrue(description.contains(request.url.withoutQuery), description, file: file, line: line)
            XCTAssertFalse(
                description.contains("secret"), "the query stays out: \(description)", file: file, line: line)
        }
        XCTAssertEqual(listener.acceptedConnections, 0, "not one connection", file: file, line: line)
    }

    func testTokenRequestToPlainLoopbackIsRefusedWithoutConnecting() async throws {
        let request = HTTPRequest.formPost(
            url: try url("/common/oauth2/v2.0/token?x=secret"),
            parameters: [("grant_type", "refresh_token"), ("refresh_token", "rt-secret-value")])
        await assertRefused(request, by: try transport())
    }

    func testBearerHeaderToPlainLoopbackIsRefusedWithoutConnecting() async throws {
        let request = HTTPRequest(url: try url("/me?secret=1"), headers: [("authorization", "Bearer at-secret")])
        await assertRefused(request, by: try transport())
    }

    func testOnlyTheExactConfiguredOriginIsExcepted() async throws {
        let port = listener.port
        let elsewhere: Set<HTTPOrigin> = [
            HTTPOrigin(scheme: "http", host: "127.0.0.1", port: port + 1),
            HTTPOrigin(scheme: "http", host: "localhost", port: port),
            HTTPOrigin(scheme: "https", host: "127.0.0.1", port: port),
        ]
        let transport = CurlHTTPTransport(
            configuration: .init(retryPolicy: RetryPolicy(retryCount: 0), plainHTTPOrigins: elsewhere))
        let request = HTTPRequest.formPost(url: try url("/token"), parameters: [("code", "secret-code")])
        await assertRefused(request, by: transport)
    }

    func testRequestWithoutACredentialStillGoesOverPlainHTTP() async throws {
        let response = try await transport().send(HTTPRequest(url: try url("/.well-known/openid-configuration")))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(listener.requestCount, 1)
    }

    func testTheConfiguredLoopbackOriginReceivesTheTokenRequest() async throws {
        let origin = HTTPOrigin(scheme: "HTTP", host: "127.0.0.1", port: listener.port)
        let transport = CurlHTTPTransport(
            configuration: .init(retryPolicy: RetryPolicy(retryCount: 0), plainHTTPOrigins: [origin]))
        let request = HTTPRequest.formPost(
            url: try url("/tenant/token"), parameters: [("grant_type", "refresh_token"), ("refresh_token", "rt")],
            headers: [("Authorization", "Basic eDp5")])
        let response = try await transport.send(request)
        XCTAssertEqual(response.statusCode, 200)
        let seen = try XCTUnwrap(received.withLock { $0.first })
        XCTAssertEqual(seen.method, "POST")
        XCTAssertEqual(seen.path, "/tenant/token")
        XCTAssertEqual(seen.bodyText, "grant_type=refresh_token&refresh_token=rt")
        XCTAssertEqual(seen.header("Authorization"), "Basic eDp5")
    }

    /// An application whose known authority is a plain-HTTP loopback OIDC issuer talks to it; the
    /// same application refuses every other plain origin.
    func testAnApplicationSendsCredentialsOnlyToItsKnownLoopbackAuthority() async throws {
        let base = Locked("")
        let seen = Locked<[HTTPServerRequest]>([])
        let issuerServer = try LoopbackHTTPServer { request in
            seen.withLock { $0.append(request) }
            let origin = base.withLock { $0 }
            if request.path.hasSuffix("/.well-known/openid-configuration") {
                return .respond(
                    .json([
                        "issuer": "\(origin)/oidc", "authorization_endpoint": "\(origin)/oidc/authorize",
                        "token_endpoint": "\(origin)/oidc/token",
                        "device_authorization_endpoint": "\(origin)/oidc/devicecode",
                    ]))
            }
            return .respond(.json(status: 400, ["error": "invalid_client", "error_description": "unknown client"]))
        }
        defer { issuerServer.stop() }
        base.withLock { $0 = issuerServer.baseURL.absoluteString }
        let issuer = try XCTUnwrap(URL(string: "\(issuerServer.baseURL)/oidc"))
        let config = MSALPublicClientApplicationConfig(
            clientId: "plain-client", redirectUri: nil, authority: try MSALOIDCAuthority(issuer: issuer))
        config.knownAuthorities = [try MSALOIDCAuthority(issuer: issuer)]
        config.cacheConfig.inMemoryOnly = true
        let application = try MSALPublicClientApplication(configuration: config)
        let transport = try XCTUnwrap(application.context.transport as? CurlHTTPTransport)
        XCTAssertEqual(
            transport.configuration.plainHTTPOrigins,
            [HTTPOrigin(scheme: "http", host: "127.0.0.1", port: issuerServer.port)])
        do {
            _ = try await application.acquireTokenWithDeviceCode(
                parameters: MSALTokenParameters(scopes: ["api.read"]), deviceCodeCallback: { _ in })
            XCTFail("the issuer refused the client")
        } catch {
            XCTAssertNotEqual((error as NSError).code, -1022, "\(error)")
        }
        let posts = seen.withLock { $0.filter { $0.method == "POST" } }
        XCTAssertEqual(posts.map(\.path), ["/oidc/devicecode"], "the device code request reached the issuer")
        XCTAssertTrue(posts.first?.bodyText.contains("client_id=plain-client") ?? false)
        // The same application's transport refuses the test case's other plain listener.
        let other = HTTPRequest.formPost(url: try url("/oidc/token"), parameters: [("refresh_token", "rt")])
        await assertRefused(other, by: transport)
    }
}

/// The resident memory of this process, from `/proc/self/status`.
struct ProcessMemory {
    private let residentBefore: Int
    private let peakWasReset: Bool

    /// Notes the resident size now and resets the peak (`/proc/self/clear_refs` with 5), so
    /// ``growth()`` sees a peak reached and released in between.
    static func startMeasuring() -> ProcessMemory {
        let reset = (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
        return ProcessMemory(residentBefore: field("VmRSS") ?? 0, peakWasReset: reset)
    }

    /// How many bytes the process grew by since ``startMeasuring()``, at its peak when the peak
    /// could be reset, else now.
    func growth() -> Int {
        let after = (peakWasReset ? Self.field("VmHWM") : nil) ?? Self.field("VmRSS") ?? 0
        return max(0, after - residentBefore)
    }

    /// A `kB` field of `/proc/self/status`, in bytes.
    private static func field(_ name: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let digits = line.dropFirst(name.count + 1).filter(\.isNumber)
            return Int(digits).map { $0 * 1024 }
        }
        return nil
    }
}
