import Foundation
import XCTest

@testable import MSAL

final class SilentTokenDecisionTests: XCTestCase {
    private let now: Int64 = 1_800_000_000

    private func status(
        expiresIn: Int64, extendedIn: Int64? = nil, refreshIn: Int64? = nil, cachedAgo: Int64 = 60
    ) -> AccessTokenStatus {
        let token = CacheAccessToken(
            homeAccountId: "u.t", environment: "e", clientId: "c", realm: "t", target: "s", secret: "at",
            tokenType: "Bearer", cachedAt: now - cachedAgo, expiresOn: now + expiresIn,
            extendedExpiresOn: extendedIn.map { now + $0 },
            refreshOn: refreshIn.map { now + $0 })
        return AccessTokenStatus(token, now: now, buffer: 300)
    }

    func testTable() {
        let cases: [(String, AccessTokenStatus?, Bool, Bool, SilentTokenDecision)] = [
            ("no token", nil, false, false, .refresh(fallback: .none)),
            ("valid", status(expiresIn: 3600), false, false, .returnCached),
            ("within buffer", status(expiresIn: 299), false, false, .refresh(fallback: .none)),
            ("just outside buffer", status(expiresIn: 301), false, false, .returnCached),
            ("force refresh", status(expiresIn: 3600), true, false, .refresh(fallback: .none)),
            (
                "refresh_on passed", status(expiresIn: 3600, refreshIn: -1), false, false,
                .refresh(fallback: .stillValid)
            ),
            ("refresh_on ahead", status(expiresIn: 3600, refreshIn: 10), false, false, .returnCached),
            ("cached in future", status(expiresIn: 3600, cachedAgo: -120), false, false, .refresh(fallback: .none)),
            (
                "expired, extended on", status(expiresIn: -10, extendedIn: 3600), false, true,
                .refresh(fallback: .extendedLifetime)
            ),
            (
                "expired, extended off", status(expiresIn: -10, extendedIn: 3600), false, false,
                .refresh(fallback: .none)
            ),
            ("extended also over", status(expiresIn: -10, extendedIn: -1), false, true, .refresh(fallback: .none)),
        ]
        for (name, status, skip, extended, expected) in cases {
            XCTAssertEqual(
                SilentTokenDecision.decide(status: status, skipCache: skip, extendedLifetimeEnabled: extended),
                expected, name)
        }
    }

    func testFallbackRules() {
        XCTAssertTrue(SilentTokenDecision.mayFallBack(.stillValid, statusCode: 503, isNetworkFailure: false))
        XCTAssertTrue(SilentTokenDecision.mayFallBack(.stillValid, statusCode: nil, isNetworkFailure: true))
        XCTAssertFalse(SilentTokenDecision.mayFallBack(.stillValid, statusCode: 400, isNetworkFailure: false))
        XCTAssertTrue(SilentTokenDecision.mayFallBack(.extendedLifetime, statusCode: 500, isNetworkFailure: false))
        XCTAssertFalse(SilentTokenDecision.mayFallBack(.extendedLifetime, statusCode: nil, isNetworkFailure: true))
        XCTAssertFalse(SilentTokenDecision.mayFallBack(.none, statusCode: 503, isNetworkFailure: true))
    }
}
