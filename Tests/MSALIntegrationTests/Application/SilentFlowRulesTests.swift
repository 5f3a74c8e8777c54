import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// acquireTokenSilent's rules over the emulator: refresh, errors, side effects, throttling,
/// fallbacks and concurrency.
final class SilentFlowRulesTests: XCTestCase {
    private var emulator: EntraEmulator!
    private var app: EmulatedApp!

    override func setUpWithError() throws {
        emulator = try EmulatedApp.makeEmulator()
        app = try EmulatedApp(emulator: emulator)
        MSALGlobalConfig.httpConfig.retryInterval = 0.01
    }

    override func tearDown() {
        MSALGlobalConfig.httpConfig.retryInterval = 0.5
        emulator.stop()
    }

    private func silent(_ account: MSALAccount, _ scopes: [String] = ["User.Read"], force: Bool = false)
        async throws -> MSALResult
    {
        let parameters = MSALSilentTokenParameters(scopes: scopes, account: account)
        parameters.forceRefresh = force
        return try await app.application.acquireTokenSilent(with: parameters)
    }

    func testForceRefreshAndLoginHintSelection() async throws {
        let first = try await app.signIn()
        let forced = try await silent(first.account, force: true)
        XCTAssertNotEqual(forced.accessToken, first.accessToken)
        let byHint = try await app.application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: ["User.Read"], loginHint: EmulatorUser.alice.username.uppercased()))
        XCTAssertEqual(byHint.accessToken, forced.accessToken)
    }

    /// A cache hit returns the id token cached now, not one remembered from an earlier hit.
    func testCacheHitsReturnTheCurrentIdToken() async throws {
        let first = try await app.signIn()
        let hit = try await silent(first.account)
        XCTAssertEqual(hit.idToken, first.idToken)
        app.advance(by: 60)
        let forced = try await silent(first.account, force: true)
        XCTAssertNotEqual(forced.idToken, first.idToken, "the refresh brought a new id token")
        let next = try await silent(first.account)
        XCTAssertEqual(next.accessToken, forced.accessToken)
        XCTAssertEqual(next.idToken, forced.idToken)
    }

    func testRevokedRefreshTokenNeedsInteractionAndBadTokenDeletesIt() async throws {
        let first = try await app.signIn()
        app.advance(by: 3600)
        emulator.inject(.invalidGrant(suberror: "bad_token"), at: .token, count: 1, grantType: .refreshToken)
        let error = await assertFailure(code: MSALError.interactionRequired.rawValue) {
            _ = try await self.silent(first.account)
        }
        XCTAssertEqual(error?.userInfo[MSALOAuthErrorKey] as? String, "invalid_grant")
        XCTAssertEqual(error?.userInfo[MSALOAuthSubErrorKey] as? String, "bad_token")
        let requests = emulator.tokenRequestCount(grantType: .refreshToken)
        let second = await assertFailure(code: MSALError.interactionRequired.rawValue) {
            _ = try await self.silent(first.account)
        }
        XCTAssertEqual(
            second?.userInfo[MSALErrorDescriptionKey] as? String,
            "No token matching arguments found in the cache, user interaction is required")
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken), requests, "no request without a token")
    }

    func testInvalidScopeIsNotWrappedAsInteractionRequired() async throws {
        let first = try await app.signIn()
        emulator.inject(
            .oauthError(EntraErrorResponse(error: "invalid_scope", code: 70011, message: "The scope is invalid.")),
            at: .token, count: 1, grantType: .refreshToken)
        await assertFailure(code: MSALError.internal.rawValue, internalCode: -42005) {
            _ = try await self.silent(first.account, force: true)
        }
    }

    func testTooManyRequestsThrottlesTheIdenticalRequest() async throws {
        let first = try await app.signIn()
        emulator.inject(.throttled(retryAfter: .seconds(30)), at: .token, count: 1, grantType: .refreshToken)
        let error = await assertFailure(code: MSALError.internal.rawValue, internalCode: -42007) {
            _ = try await self.silent(first.account, force: true)
        }
        XCTAssertEqual(error?.userInfo[MSALHTTPResponseCodeKey] as? String, "429")
        let requests = emulator.tokenRequestCount(grantType: .refreshToken)
        let throttled = await assertFailure(code: MSALError.internal.rawValue) {
            _ = try await self.silent(first.account, force: true)
        }
        XCTAssertEqual(throttled?.userInfo[MSALThrottlingCacheHitKey] as? Int, 1)
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken), requests, "answered by the client")
        app.advance(by: 31)
        _ = try await silent(first.account, force: true)
    }

    func testProactiveRefreshFallsBackToTheValidTokenWhenTheServiceIsDown() async throws {
        var lifetimes = emulator.lifetimes
        lifetimes.refreshIn = 600
        emulator.lifetimes = lifetimes
        let first = try await app.signIn()
        app.advance(by: 700)
        emulator.inject(.serverError(status: 503), at: .token, count: 2, grantType: .refreshToken)
        let fallback = try await silent(first.account)
        XCTAssertEqual(fallback.accessToken, first.accessToken)
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken), 2, "one request, retried once")
    }

    func testExtendedLifetimeTokenIsReturnedOnServerErrorsWhenEnabled() async throws {
        emulator.stop()
        emulator = try EmulatedApp.makeEmulator()
        app = try EmulatedApp(emulator: emulator) { $0.extendedLifetimeEnabled = true }
        var lifetimes = emulator.lifetimes
        lifetimes.extendedAccessToken = 7200
        emulator.lifetimes = lifetimes
        let first = try await app.signIn()
        app.advance(by: 3700)
        emulator.inject(.serverError(status: 500), at: .token, count: 2, grantType: .refreshToken)
        let extended = try await silent(first.account)
        XCTAssertEqual(extended.accessToken, first.accessToken)
        XCTAssertTrue(extended.extendedLifeTimeToken)
    }

    func testConcurrentSilentCallsShareOneRefresh() async throws {
        let first = try await app.signIn()
        app.advance(by: 3600)
        let before = emulator.tokenRequestCount(grantType: .refreshToken)
        let account = first.account
        let application = app.application
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    try await application.acquireTokenSilent(
                        with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
                    ).accessToken
                }
            }
            var tokens = Set<String>()
            for try await token in group { tokens.insert(token) }
            return tokens
        }
        XCTAssertEqual(tokens.count, 1)
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken) - before, 1)
    }

    func testDeclinedScopesAreReportedWithTheCachedResult() async throws {
        emulator.signInDecision = { _ in .signIn(username: EmulatorUser.alice.username, declinedScopes: ["Mail.Read"]) }
        let error = await assertFailure(code: MSALError.serverDeclinedScopes.rawValue) {
            _ = try await self.app.signIn(["User.Read", "Mail.Read"])
        }
        XCTAssertEqual(error?.userInfo[MSALDeclinedScopesKey] as? [String], ["Mail.Read"])
        XCTAssertEqual((error?.userInfo[MSALGrantedScopesKey] as? [String])?.contains("User.Read"), true)
        let invalid = try XCTUnwrap(error?.userInfo[MSALInvalidResultKey] as? MSALResult)
        let cached = try await silent(invalid.account, ["User.Read"])
        XCTAssertEqual(cached.accessToken, invalid.accessToken)
    }

    func testDefaultScopeIsServedFromTheCacheNextTime() async throws {
        let scope = MSALScopes.defaultScope(forResource: EmulatorClient.graph)
        let first = try await app.signIn([scope])
        let before = emulator.requestCount(.token)
        let again = try await silent(first.account, [scope])
        XCTAssertEqual(again.accessToken, first.accessToken)
        XCTAssertEqual(emulator.requestCount(.token), before)
    }

    func testRemovedAccountNeedsInteractionAndDisappears() async throws {
        let first = try await app.signIn()
        try app.application.remove(first.account)
        XCTAssertEqual(try app.application.allAccounts().count, 0)
        let error = await assertFailure(code: MSALError.interactionRequired.rawValue) {
            _ = try await self.silent(first.account)
        }
        XCTAssertEqual(
            error?.userInfo[MSALErrorDescriptionKey] as? String, "Account is signed out, user interaction is required.")
        let again = try await app.signIn { $0.account = first.account }
        XCTAssertEqual(
            emulator.recentRequests(to: .authorize).last?.queryItems.first { $0.name == "prompt" }?.value, "login")
        XCTAssertEqual(try app.application.allAccounts().count, 1)
        _ = again
    }
}
