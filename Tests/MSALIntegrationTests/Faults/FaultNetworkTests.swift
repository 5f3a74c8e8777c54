import Foundation
import MSALTestSupport
import XCTest

@testable import MSAL

/// The network fails: a connection dropped mid-response, a server that stalls past the timeout,
/// a host that does not resolve, and servers whose certificate must be refused.
final class FaultNetworkTests: FaultSuiteCase {
    func testConnectionDroppedMidResponseIsRetriedThenReportedAsConnectionLost() async throws {
        let first = try await signIn()
        // Once: the retry gets the answer.
        emulator.inject(.truncatedResponse, at: .token, grantType: .refreshToken)
        remember(try await app.application.acquireTokenSilent(with: silent(first.account, force: true)))
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken), 2)

        let before = CacheSnapshot.read(cacheFile)
        emulator.inject(.truncatedResponse, at: .token, count: 2, grantType: .refreshToken)
        let error = await assertFailure(domain: NSURLErrorDomain, code: URLError.Code.networkConnectionLost.rawValue) {
            _ = try await self.app.application.acquireTokenSilent(with: self.silent(first.account, force: true))
        }
        XCTAssertNotNil(error?.userInfo[NSUnderlyingErrorKey] ?? error?.userInfo[NSLocalizedDescriptionKey])
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken), 4, "sent once, retried once")
        assertCacheUnchanged(since: before)
        // The emulator issued tokens the app never received; the app's own refresh token still works.
        remember(try await app.application.acquireTokenSilent(with: silent(first.account, force: true)))
    }

    func testServerStallingPastTheTimeoutIsTimedOut() async throws {
        let first = try await signIn()
        let before = CacheSnapshot.read(cacheFile)
        MSALGlobalConfig.httpConfig.timeoutIntervalForRequest = 1
        let stalled = try makeApp()
        emulator.inject(.delay(seconds: 2.5), at: .token, count: 2, grantType: .refreshToken)
        let start = Date()
        await assertFailure(domain: NSURLErrorDomain, code: URLError.Code.timedOut.rawValue) {
            _ = try await stalled.application.acquireTokenSilent(with: self.silent(first.account, force: true))
        }
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertLessThan(elapsed, 4, "two attempts of about a second each, not the server's stall")
        XCTAssertGreaterThanOrEqual(elapsed, 1.9)
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken), 2)
        assertCacheUnchanged(since: before)
    }

    func testHostThatDoesNotResolveIsCannotFindHost() async throws {
        _ = try await signIn()
        let before = CacheSnapshot.read(cacheFile)
        let requests = emulator.totalRequestCount
        // RFC 6761: names under .invalid never resolve.
        let unresolvable = try makeApp(authority: URL(string: "https://login.fault.invalid/tenant")!) { config in
            config.authority = try MSALOIDCAuthority(issuer: URL(string: "https://login.fault.invalid/tenant")!)
        }
        let error = await assertFailure(domain: NSURLErrorDomain, code: URLError.Code.cannotFindHost.rawValue) {
            _ = try await unresolvable.application.acquireTokenWithDeviceCode(
                parameters: MSALTokenParameters(scopes: ["User.Read"]), deviceCodeCallback: { _ in })
        }
        XCTAssertNotNil(error?.userInfo[NSURLErrorFailingURLErrorKey] ?? error?.userInfo["NSErrorFailingURLKey"])
        XCTAssertEqual(emulator.totalRequestCount, requests)
        assertCacheUnchanged(since: before)
    }

    /// A server in the emulator's place presenting `certificate` (or one from an unknown authority).
    private func impostor(_ certificate: TestServerCertificate?) throws -> LoopbackHTTPSServer {
        try LoopbackHTTPSServer(certificate: certificate) { _ in .respond(.text("should never be reached")) }
    }

    private func assertRefused(
        by server: LoopbackHTTPSServer, code: Int, file: StaticString = #filePath, line: UInt = #line
    )
        async throws
    {
        defer { server.stop() }
        let first = try await signIn()
        let before = CacheSnapshot.read(cacheFile)
        let requests = emulator.totalRequestCount
        // The same hosts, now routed to the impostor.
        let routes = emulator.connectTo.map { route in
            route.split(separator: ":").dropLast().joined(separator: ":") + ":\(server.port)"
        }
        let application = try makeApp(connectTo: routes).application
        let error = await assertFailure(domain: NSURLErrorDomain, code: code, file: file, line: line) {
            _ = try await application.acquireTokenSilent(with: self.silent(first.account, force: true))
        }
        XCTAssertNotNil(error?.userInfo[MSALCurlErrorCodeKey], file: file, line: line)
        XCTAssertEqual(server.requestCount, 0, "no request crossed the refused handshake", file: file, line: line)
        XCTAssertEqual(emulator.totalRequestCount, requests, file: file, line: line)
        assertCacheUnchanged(since: before, file: file, line: line)
    }

    func testUntrustedCertificateIsRefused() async throws {
        try await assertRefused(by: try impostor(nil), code: URLError.Code.serverCertificateUntrusted.rawValue)
    }

    func testCertificateForAnotherHostIsRefused() async throws {
        let other = try emulator.certificateAuthority.issueCertificate(dnsNames: ["other.example"], ipAddresses: [])
        try await assertRefused(by: try impostor(other), code: URLError.Code.serverCertificateUntrusted.rawValue)
    }

    func testExpiredCertificateIsRefused() async throws {
        let expired = try emulator.certificateAuthority.issueCertificate(
            dnsNames: ["login.microsoftonline.com"], notBefore: Date(timeIntervalSinceNow: -2 * 86400),
            notAfter: Date(timeIntervalSinceNow: -86400))
        try await assertRefused(by: try impostor(expired), code: URLError.Code.serverCertificateHasBadDate.rawValue)
    }
}
