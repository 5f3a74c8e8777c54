import Foundation
import MSALNative
import XCTest

@testable import MSAL

final class ThrottlingCacheTests: XCTestCase {
    private let clock = Locked(Date(timeIntervalSince1970: 1_800_000_000))
    private lazy var cache = ThrottlingCache { [clock] in clock.withLock { $0 } }
    private let endpoint = URL(string: "https://login.microsoftonline.com/t/oauth2/v2.0/token")!

    private func thumbprints(refreshToken: String = "rt", scope: String = "a b", extra: String = "1")
        -> ThrottlingCache.Thumbprints
    {
        .init(
            endpoint: endpoint,
            parameters: [
                ("client_id", "c"), ("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("scope", scope),
                ("client_info", extra),
            ])
    }

    private func advance(_ seconds: TimeInterval) {
        clock.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    /// An unhandled status (-42007 for the app).
    private func busy(_ status: Int, retryAfter: String? = nil) -> TokenRequestFailure {
        TokenRequestFailure(
            reason: .unhandledResponse(.init(statusCode: status, headers: [:], retryAfter: retryAfter)),
            correlationId: UUID())
    }

    /// An OAuth error body (-50002 for the app of the silent flow).
    private let uiFailure = TokenRequestFailure(
        reason: .server(OAuthServerError(error: "invalid_grant"), .init(statusCode: 400, headers: [:])),
        correlationId: UUID())

    func testTooManyRequestsThrottlesTheIdenticalRequestForRetryAfterSeconds() throws {
        cache.record(busy(429, retryAfter: "30"), for: thumbprints())
        let hit = try XCTUnwrap(cache.throttledFailure(for: thumbprints()))
        XCTAssertTrue(hit.isThrottled)
        let error = MSALErrors.error(for: hit)
        XCTAssertEqual(error.userInfo[MSALThrottlingCacheHitKey] as? Int, 1)
        XCTAssertEqual(error.userInfo[MSALInternalErrorCodeKey] as? Int, -42007)
        XCTAssertNil(cache.throttledFailure(for: thumbprints(refreshToken: "other")))
        XCTAssertNil(cache.throttledFailure(for: thumbprints(scope: "c")))
        XCTAssertNotNil(cache.throttledFailure(for: thumbprints(extra: "changed")), "strict thumbprint ignores others")
        advance(30)
        XCTAssertNil(cache.throttledFailure(for: thumbprints()))
    }

    func testServerErrorsThrottleForSixtySecondsByDefault() {
        cache.record(busy(503), for: thumbprints())
        advance(59)
        XCTAssertNotNil(cache.throttledFailure(for: thumbprints()))
        advance(1)
        XCTAssertNil(cache.throttledFailure(for: thumbprints()))
    }

    func testRetryAfterIsCappedAtAnHourAndAcceptsHTTPDates() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        XCTAssertEqual(ThrottlingCache.retryAfterSeconds("999999", now: now), 3600)
        XCTAssertEqual(ThrottlingCache.retryAfterSeconds(" 0 ", now: now), 0)
        XCTAssertNil(ThrottlingCache.retryAfterSeconds("-5", now: now))
        XCTAssertNil(ThrottlingCache.retryAfterSeconds("soon", now: now))
        // Numbers no integer holds: read by ServerNumber, never a trap.
        XCTAssertEqual(ThrottlingCache.retryAfterSeconds("9.3e18", now: now), 3600)
        XCTAssertEqual(ThrottlingCache.retryAfterSeconds("99999999999999999999999", now: now), 3600)
        XCTAssertNil(ThrottlingCache.retryAfterSeconds("-1e30", now: now))
        XCTAssertNil(ThrottlingCache.retryAfterSeconds("1e400", now: now))
        XCTAssertEqual(ThrottlingCache.retryAfterSeconds("1.5", now: now), 1)
        // 1800000000 is Fri, 15 Jan 2027 08:00:00 GMT.
        XCTAssertEqual(ThrottlingCache.retryAfterSeconds("Fri, 15 Jan 2027 08:02:00 GMT", now: now), 120)
        XCTAssertEqual(ThrottlingCache.retryAfterSeconds("Friday, 15-Jan-27 08:01:00 GMT", now: now), 60)
        XCTAssertEqual(ThrottlingCache.retryAfterSeconds("Fri Jan 15 08:00:30 2027", now: now), 30)
        XCTAssertEqual(ThrottlingCache.retryAfterSeconds("Thu, 14 Jan 2027 08:00:00 GMT", now: now), 0)
    }

    func testRetryAfterOnAnyStatusThrottles() {
        cache.record(busy(400, retryAfter: "10"), for: thumbprints())
        XCTAssertNotNil(cache.throttledFailure(for: thumbprints()))
    }

    func testUserInteractionErrorsThrottleTheFullRequestForTwoMinutesOrUntilSignIn() {
        cache.record(uiFailure, for: thumbprints())
        XCTAssertNotNil(cache.throttledFailure(for: thumbprints()))
        XCTAssertNil(cache.throttledFailure(for: thumbprints(extra: "changed")), "full thumbprint")
        advance(119)
        XCTAssertNotNil(cache.throttledFailure(for: thumbprints()))
        cache.userInteractionSucceeded()
        XCTAssertNil(cache.throttledFailure(for: thumbprints()))

        cache.record(uiFailure, for: thumbprints())
        advance(120)
        XCTAssertNil(cache.throttledFailure(for: thumbprints()))
    }

    func testOtherFailuresAreNotThrottled() {
        let network = NSError(domain: NSURLErrorDomain, code: URLError.Code.timedOut.rawValue)
        cache.record(TokenRequestFailure(reason: .network(network), correlationId: UUID()), for: thumbprints())
        cache.record(
            TokenRequestFailure(
                reason: .local(
                    MSALErrors.make(.internalErrorInvalidResponse, "bad"), .init(statusCode: 200, headers: [:])),
                correlationId: UUID()),
            for: thumbprints())
        XCTAssertNil(cache.throttledFailure(for: thumbprints()))
    }

    func testRuleTable() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let network = TokenRequestFailure(
            reason: .network(NSError(domain: NSURLErrorDomain, code: URLError.Code.timedOut.rawValue)),
            correlationId: UUID())
        let malformed = { (retryAfter: String?) in
            TokenRequestFailure(
                reason: .local(
                    MSALErrors.make(.internalErrorInvalidResponse, "bad", ErrorDetails(oauthError: "invalid_grant")),
                    .init(statusCode: 200, headers: [:], retryAfter: retryAfter)),
                correlationId: UUID())
        }
        let refusedWithRetryAfter = TokenRequestFailure(
            reason: .server(
                OAuthServerError(error: "invalid_grant"), .init(statusCode: 400, headers: [:], retryAfter: "10")),
            correlationId: UUID())
        let rows: [(String, TokenRequestFailure, ThrottlingCache.Rule?)] = [
            ("429", busy(429), .serviceBusy(seconds: 60)),
            ("429 Retry-After", busy(429, retryAfter: "30"), .serviceBusy(seconds: 30)),
            ("500", busy(500), .serviceBusy(seconds: 60)),
            ("599 unreadable Retry-After", busy(599, retryAfter: "soon"), .serviceBusy(seconds: 60)),
            ("302", busy(302), nil),
            ("400 without body, Retry-After", busy(400, retryAfter: "10"), .serviceBusy(seconds: 10)),
            ("OAuth error", uiFailure, .userInteraction),
            ("OAuth error, Retry-After", refusedWithRetryAfter, .serviceBusy(seconds: 10)),
            ("network", network, nil),
            ("malformed 200", malformed(nil), nil),
            ("malformed 200, Retry-After", malformed("5"), .serviceBusy(seconds: 5)),
        ]
        for (name, failure, expected) in rows {
            XCTAssertEqual(ThrottlingCache.rule(for: failure, now: now), expected, name)
        }
    }

    func testTheRecordedFailureComesBackThrottled() throws {
        cache.record(uiFailure, for: thumbprints())
        let hit = try XCTUnwrap(cache.throttledFailure(for: thumbprints()))
        XCTAssertTrue(hit.isThrottled)
        XCTAssertEqual(hit.serverError, uiFailure.serverError)
        XCTAssertEqual(hit.correlationId, uiFailure.correlationId)
        XCTAssertEqual(hit.statusCode, 400)
    }

    func testLeastRecentlyUsedEntriesAreDroppedBeyondCapacity() {
        for index in 0...ThrottlingCache.capacity {
            cache.record(busy(429), for: thumbprints(refreshToken: "\(index)"))
            if index == 10 { _ = cache.throttledFailure(for: thumbprints(refreshToken: "0")) }
        }
        XCTAssertNotNil(cache.throttledFailure(for: thumbprints(refreshToken: "0")), "recently used")
        XCTAssertNil(cache.throttledFailure(for: thumbprints(refreshToken: "1")), "least recently used")
        XCTAssertNotNil(cache.throttledFailure(for: thumbprints(refreshToken: "\(ThrottlingCache.capacity)")))
    }
}
