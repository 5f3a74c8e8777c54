import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// A cached token needs no network: after a sign-in through `/common`, a new process finds the
/// token with what sign-in recorded, even when every connection is refused and the kept discovery
/// documents expired; and discovery that fails on the network falls back to a kept document.
final class FaultOfflineSilentTests: FaultSuiteCase {
    /// An application whose every connection to the emulator's hosts is refused (a port that was
    /// just closed).
    private func offlineApp() throws -> EmulatedApp {
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        let port = listener.port
        listener.close()
        let routes = emulator.connectTo.map { route in
            route.split(separator: ":").dropLast().joined(separator: ":") + ":\(port)"
        }
        return try makeApp(connectTo: routes)
    }

    /// Moves the expiry of every discovery document kept in the cache file `seconds` into the past.
    private func expireKeptDiscovery(by seconds: TimeInterval = 3600) throws {
        let data = try Data(contentsOf: cacheFile)
        var object = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var section = try XCTUnwrap(object[CacheDiscoveryStorage.sectionName] as? [String: [String: Any]])
        XCTAssertFalse(section.isEmpty)
        let past = String(Int64(Date().timeIntervalSince1970 - seconds))
        for key in section.keys { section[key]?["expires_on"] = past }
        object[CacheDiscoveryStorage.sectionName] = section
        try JSONSerialization.data(withJSONObject: object).write(to: cacheFile)
    }

    func testACachedTokenAfterSignInThroughCommonNeedsNoRequest() async throws {
        let first = try await signIn()
        let requests = emulator.totalRequestCount
        let offline = try offlineApp()
        let result = try await offline.application.acquireTokenSilent(with: silent(first.account))
        XCTAssertEqual(result.accessToken, first.accessToken)
        XCTAssertEqual(result.account.identifier, first.account.identifier)
        XCTAssertEqual(result.tenantProfile.tenantId, first.tenantProfile.tenantId)
        XCTAssertEqual(emulator.totalRequestCount, requests, "a cached token needs no request")
        // The application that signed in does not ask either.
        _ = try await app.application.acquireTokenSilent(with: silent(first.account))
        XCTAssertEqual(emulator.totalRequestCount, requests)
    }

    func testACachedTokenNeedsNoRequestAfterTheKeptDiscoveryExpired() async throws {
        let first = try await signIn()
        try expireKeptDiscovery(by: 25 * 3600)
        let requests = emulator.totalRequestCount
        let result = try await offlineApp().application.acquireTokenSilent(with: silent(first.account))
        XCTAssertEqual(result.accessToken, first.accessToken)
        XCTAssertEqual(emulator.totalRequestCount, requests)
        // A refresh does need the network: with every connection refused it fails as the network does.
        let error = await assertNetworkFailure {
            _ = try await self.offlineApp().application.acquireTokenSilent(
                with: self.silent(first.account, force: true))
        }
        XCTAssertEqual(error?.domain, NSURLErrorDomain)
    }

    func testDiscoveryFailingOnTheNetworkFallsBackToTheKeptDocument() async throws {
        let first = try await signIn()
        // The home tenant's configuration is fetched and kept by a refresh.
        remember(try await app.application.acquireTokenSilent(with: silent(first.account, force: true)))
        try expireKeptDiscovery()
        emulator.inject(.dropConnection, at: .openIDConfiguration, count: 100)
        emulator.inject(.dropConnection, at: .instanceDiscovery, count: 100)
        let refreshes = emulator.tokenRequestCount(grantType: .refreshToken)
        let fresh = try makeApp()
        let result = try await fresh.application.acquireTokenSilent(with: silent(first.account, force: true))
        remember(result)
        XCTAssertNotEqual(result.accessToken, first.accessToken)
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken), refreshes + 1)
        XCTAssertGreaterThan(emulator.requestCount(.openIDConfiguration), 0, "discovery was tried first")
    }

    func testAKeptDocumentOlderThanTheStaleLimitIsNotUsed() async throws {
        let first = try await signIn()
        remember(try await app.application.acquireTokenSilent(with: silent(first.account, force: true)))
        try expireKeptDiscovery(by: DiscoveryCache.staleLimit + 3600)
        emulator.inject(.dropConnection, at: .openIDConfiguration, count: 100)
        emulator.inject(.dropConnection, at: .instanceDiscovery, count: 100)
        let refreshes = emulator.tokenRequestCount(grantType: .refreshToken)
        let error = await assertNetworkFailure {
            _ = try await self.makeApp().application.acquireTokenSilent(with: self.silent(first.account, force: true))
        }
        XCTAssertEqual(error?.domain, NSURLErrorDomain)
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken), refreshes)
    }

    private func assertNetworkFailure(_ body: @escaping () async throws -> Void) async -> NSError? {
        do {
            try await body()
            XCTFail("expected a failure")
            return nil
        } catch {
            return error as NSError
        }
    }
}
