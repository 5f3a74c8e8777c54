import Foundation
import XCTest

@testable import MSAL

final class SilentTokenDecisionTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func times(
        expiresIn: TimeInterval, extendedIn: TimeInterval? = nil, refreshIn: TimeInterval? = nil,
        cachedAgo: TimeInterval = 60
    ) -> SilentTokenDecision.CachedTimes {
        .init(
            expiresOn: now.addingTimeInterval(expiresIn), extendedExpiresOn: extendedIn.map(now.addingTimeInterval),
            refreshOn: refreshIn.map(now.addingTimeInterval), cachedAt: now.addingTimeInterval(-cachedAgo))
    }

    private func decide(
        _ cached: SilentTokenDecision.CachedTimes?, skip: Bool = false, extended: Bool = false
    ) -> SilentTokenDecision {
        SilentTokenDecision.decide(
            cached: cached, now: now, buffer: 300, skipCache: skip, extendedLifetimeEnabled: extended)
    }

    func testTable() {
        let cases: [(String, SilentTokenDecision.CachedTimes?, Bool, Bool, SilentTokenDecision)] = [
            ("no token", nil, false, false, .refresh(fallback: .none)),
            ("valid", times(expiresIn: 3600), false, false, .returnCached),
            ("within buffer", times(expiresIn: 299), false, false, .refresh(fallback: .none)),
            ("just outside buffer", times(expiresIn: 301), false, false, .returnCached),
            ("force refresh", times(expiresIn: 3600), true, false, .refresh(fallback: .none)),
            ("refresh_on passed", times(expiresIn: 3600, refreshIn: -1), false, false, .refresh(fallback: .stillValid)),
            ("refresh_on ahead", times(expiresIn: 3600, refreshIn: 10), false, false, .returnCached),
            ("cached in future", times(expiresIn: 3600, cachedAgo: -120), false, false, .refresh(fallback: .none)),
            (
                "expired, extended on", times(expiresIn: -10, extendedIn: 3600), false, true,
                .refresh(fallback: .extendedLifetime)
            ),
            ("expired, extended off", times(expiresIn: -10, extendedIn: 3600), false, false, .refresh(fallback: .none)),
            ("extended also over", times(expiresIn: -10, extendedIn: -1), false, true, .refresh(fallback: .none)),
        ]
        for (name, cached, skip, extended, expected) in cases {
            XCTAssertEqual(decide(cached, skip: skip, extended: extended), expected, name)
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
