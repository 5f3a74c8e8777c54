import Foundation
import MSALTestSupport
import XCTest

@testable import MSAL

/// The service says no: throttling with `Retry-After` in both forms, 5xx with and without a
/// successful retry, a refresh token revoked mid-session, and clocks that disagree.
final class FaultServiceTests: FaultSuiteCase {
    func testRetryAfterSecondsThrottlesIdenticalRequestsUntilItPasses() async throws {
        let first = try await signIn()
        let before = CacheSnapshot.read(cacheFile)
        emulator.inject(.throttled(retryAfter: .seconds(30)), at: .token, grantType: .refreshToken)
        let error = await assertFailure(code: MSALError.internal.rawValue, internalCode: -42007) {
            _ = try await self.app.application.acquireTokenSilent(with: self.silent(first.account, force: true))
        }
        XCTAssertEqual(error?.userInfo[MSALHTTPResponseCodeKey] as? String, "429")
        XCTAssertNil(error?.userInfo[MSALThrottlingCacheHitKey])
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken), 1, "429 is never retried")

        for _ in 0..<3 {
            let throttled = await assertFailure(code: MSALError.internal.rawValue, internalCode: -42007) {
                _ = try await self.app.application.acquireTokenSilent(with: self.silent(first.account, force: true))
            }
            XCTAssertEqual(throttled?.userInfo[MSALThrottlingCacheHitKey] as? Int, 1)
        }
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken), 1, "identical requests stay home")
        // A request that does not need the network is not throttled: the cached token still serves.
        let cached = try await app.application.acquireTokenSilent(with: silent(first.account))
        XCTAssertEqual(cached.accessToken, first.accessToken)
        assertCacheUnchanged(since: before)

        app.advance(by: 29)
        await assertFailure(code: MSALError.internal.rawValue, internalCode: -42007) {
            _ = try await self.app.application.acquireTokenSilent(with: self.silent(first.account, force: true))
        }
        app.advance(by: 2)
        let refreshed = try await app.application.acquireTokenSilent(with: silent(first.account, force: true))
        remember(refreshed)
        XCTAssertNotEqual(refreshed.accessToken, first.accessToken)
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken), 2)
    }

    func testRetryAfterHTTPDateThrottlesUntilThatDate() async throws {
        let first = try await signIn()
        let before = CacheSnapshot.read(cacheFile)
        // HTTP dates have whole seconds: 90 s from the emulator's (and the app's) now, rounded up.
        let until = Date(timeIntervalSince1970: (emulator.now.timeIntervalSince1970 + 90).rounded(.up))
        // A 503 is retried once (reference §6), so the fault answers both attempts.
        emulator.inject(
            .throttled(status: 503, retryAfter: .date(until)), at: .token, count: 2, grantType: .refreshToken)
        let error = await assertFailure(code: MSALError.internal.rawValue, internalCode: -42007) {
            _ = try await self.app.application.acquireTokenSilent(with: self.silent(first.account, force: true))
        }
        XCTAssertEqual(error?.userInfo[MSALHTTPResponseCodeKey] as? String, "503")
        let sent = emulator.tokenRequestCount(grantType: .refreshToken)
        XCTAssertEqual(sent, 2)
        app.advance(by: 60)
        let throttled = await assertFailure(code: MSALError.internal.rawValue, internalCode: -42007) {
            _ = try await self.app.application.acquireTokenSilent(with: self.silent(first.account, force: true))
        }
        XCTAssertEqual(throttled?.userInfo[MSALThrottlingCacheHitKey] as? Int, 1)
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken), sent)
        assertCacheUnchanged(since: before)
        app.advance(by: 60)  // well past the date, whatever the clocks drifted while the test ran
        remember(try await app.application.acquireTokenSilent(with: silent(first.account, force: true)))
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken), sent + 1)
    }

    func testServerErrorsAreRetriedOnceThenSucceedOrFailWithTheCacheIntact() async throws {
        let first = try await signIn()
        for status in [500, 503] {
            emulator.inject(.serverError(status: status), at: .token, grantType: .refreshToken)
            let before = emulator.tokenRequestCount(grantType: .refreshToken)
            let result = try await app.application.acquireTokenSilent(with: silent(first.account, force: true))
            remember(result)
            XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken) - before, 2, "\(status): retried once")
        }
        let before = CacheSnapshot.read(cacheFile)
        let sent = emulator.tokenRequestCount(grantType: .refreshToken)
        emulator.inject(.serverError(status: 500), at: .token, count: 2, grantType: .refreshToken)
        let error = await assertFailure(code: MSALError.internal.rawValue, internalCode: -42007) {
            _ = try await self.app.application.acquireTokenSilent(with: self.silent(first.account, force: true))
        }
        XCTAssertEqual(error?.userInfo[MSALHTTPResponseCodeKey] as? String, "500")
        // As MSAL does, a 5xx body is not read as an OAuth error: the status says it all.
        XCTAssertNil(error?.userInfo[MSALOAuthErrorKey])
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken) - sent, 2)
        assertCacheUnchanged(since: before)
        // Without Retry-After a 5xx throttles the identical request for 60 s.
        await assertFailure(code: MSALError.internal.rawValue, internalCode: -42007) {
            _ = try await self.app.application.acquireTokenSilent(with: self.silent(first.account, force: true))
        }
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken) - sent, 2)
    }

    func testRefreshTokenRevokedMidSessionNeedsInteractionAndKeepsTheAccount() async throws {
        let alice = try await signIn()
        let bob = try await signIn(EmulatorUser.bob.username)
        remember(try await app.application.acquireTokenSilent(with: silent(alice.account, force: true)))
        XCTAssertGreaterThan(emulator.revokeRefreshTokens(for: EmulatorUser.alice.username), 0)
        app.advance(by: 3600)
        let sent = emulator.tokenRequestCount(grantType: .refreshToken)
        let error = await assertFailure(code: MSALError.interactionRequired.rawValue) {
            _ = try await self.app.application.acquireTokenSilent(with: self.silent(alice.account))
        }
        XCTAssertEqual(error?.userInfo[MSALOAuthErrorKey] as? String, "invalid_grant")
        let underlying = error?.userInfo[NSUnderlyingErrorKey] as? NSError
        XCTAssertEqual(
            (underlying?.userInfo[MSALSTSErrorCodesKey] as? [Any])?.first as? Int, 50173, "\(error as Any)")
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken) - sent, 1)

        // The account stays (MSAL keeps it for the next interactive sign-in); bob is untouched.
        let accounts = try app.application.allAccounts().compactMap(\.username)
        XCTAssertEqual(Set(accounts), [EmulatorUser.alice.username, EmulatorUser.bob.username])
        remember(try await app.application.acquireTokenSilent(with: silent(bob.account)))
        // Signing in again mends it.
        let again = try await app.signIn { $0.account = alice.account }
        remember(again)
        app.advance(by: 3600)
        remember(try await app.application.acquireTokenSilent(with: silent(again.account)))
    }

    func testClockSkewBetweenClientAndServer() async throws {
        // The server's clock runs 10 minutes ahead: tokens expire by `expires_in`, not by the
        // server's clock, so they are used for their whole life on the client.
        emulator.advanceClock(by: 600)
        let first = try await signIn()
        app.advance(by: 3000)  // 50 of the token's 60 minutes
        let cached = try await app.application.acquireTokenSilent(with: silent(first.account))
        XCTAssertEqual(cached.accessToken, first.accessToken)
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken), 0)
        app.advance(by: 400)  // inside the 5-minute expiry buffer
        let refreshed = try await app.application.acquireTokenSilent(with: silent(first.account))
        remember(refreshed)
        XCTAssertNotEqual(refreshed.accessToken, first.accessToken)
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken), 1)

        // The client's clock jumps back a day: a token cached "in the future" is not trusted.
        app.advance(by: -86_400)
        let afterJump = try await app.application.acquireTokenSilent(with: silent(first.account))
        remember(afterJump)
        XCTAssertNotEqual(afterJump.accessToken, refreshed.accessToken)
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken), 2)
        let stable = try await app.application.acquireTokenSilent(with: silent(first.account))
        XCTAssertEqual(stable.accessToken, afterJump.accessToken, "the new token is cached at the new time")
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken), 2)
        XCTAssertGreaterThan(logLineCount, 0)
    }
}
