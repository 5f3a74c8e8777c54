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

    private let serverError = MSALErrors.make(.internalErrorUnhandledResponse, "busy")
    private let uiError = MSALErrors.make(
        .interactionRequired, "User interaction is required", ErrorDetails(oauthError: "invalid_grant"))

    func testTooManyRequestsThrottlesTheIdenticalRequestForRetryAfterSeconds() throws {
        cache.record(error: serverError, statusCode: 429, retryAfter: "30", for: thumbprints())
        let hit = try XCTUnwrap(cache.throttledError(for: thumbprints()))
        XCTAssertEqual(hit.userInfo[MSALThrottlingCacheHitKey] as? Int, 1)
        XCTAssertEqual(hit.userInfo[MSALInternalErrorCodeKey] as? Int, -42007)
        XCTAssertNil(cache.throttledError(for: thumbprints(refreshToken: "other")))
        XCTAssertNil(cache.throttledError(for: thumbprints(scope: "c")))
        XCTAssertNotNil(cache.throttledError(for: thumbprints(extra: "changed")), "strict thumbprint ignores others")
        advance(30)
        XCTAssertNil(cache.throttledError(for: thumbprints()))
    }

    func testServerErrorsThrottleForSixtySecondsByDefault() {
        cache.record(error: serverError, statusCode: 503, retryAfter: nil, for: thumbprints())
        advance(59)
        XCTAssertNotNil(cache.throttledError(for: thumbprints()))
        advance(1)
        XCTAssertNil(cache.throttledError(for: thumbprints()))
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
        cache.record(error: serverError, statusCode: 400, retryAfter: "10", for: thumbprints())
        XCTAssertNotNil(cache.throttledError(for: thumbprints()))
    }

    func testUserInteractionErrorsThrottleTheFullRequestForTwoMinutesOrUntilSignIn() {
        cache.record(error: uiError, statusCode: 400, retryAfter: nil, for: thumbprints())
        XCTAssertNotNil(cache.throttledError(for: thumbprints()))
        XCTAssertNil(cache.throttledError(for: thumbprints(extra: "changed")), "full thumbprint")
        advance(119)
        XCTAssertNotNil(cache.throttledError(for: thumbprints()))
        cache.userInteractionSucceeded()
        XCTAssertNil(cache.throttledError(for: thumbprints()))

        cache.record(error: uiError, statusCode: 400, retryAfter: nil, for: thumbprints())
        advance(120)
        XCTAssertNil(cache.throttledError(for: thumbprints()))
    }

    func testOtherFailuresAreNotThrottled() {
        let network = NSError(domain: NSURLErrorDomain, code: URLError.Code.timedOut.rawValue)
        cache.record(error: network, statusCode: nil, retryAfter: nil, for: thumbprints())
        cache.record(
            error: MSALErrors.make(.internalErrorInvalidResponse, "bad"), statusCode: 200, retryAfter: nil,
            for: thumbprints())
        XCTAssertNil(cache.throttledError(for: thumbprints()))
    }

    func testLeastRecentlyUsedEntriesAreDroppedBeyondCapacity() {
        for index in 0...ThrottlingCache.capacity {
            cache.record(
                error: serverError, statusCode: 429, retryAfter: nil, for: thumbprints(refreshToken: "\(index)"))
            if index == 10 { _ = cache.throttledError(for: thumbprints(refreshToken: "0")) }
        }
        XCTAssertNotNil(cache.throttledError(for: thumbprints(refreshToken: "0")), "recently used")
        XCTAssertNil(cache.throttledError(for: thumbprints(refreshToken: "1")), "least recently used")
        XCTAssertNotNil(cache.throttledError(for: thumbprints(refreshToken: "\(ThrottlingCache.capacity)")))
    }
}
