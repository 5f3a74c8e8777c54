import Foundation
import XCTest

@testable import MSAL

/// Expiry is decided at full precision although the cache keeps whole seconds: a token with
/// 299.37 s left is inside the 300 s buffer.
final class AccessTokenPrecisionTests: XCTestCase {
    private let expiresOn: Int64 = 1_800_003_600

    private func token(refreshOn: Int64? = nil) -> CacheAccessToken {
        CacheAccessToken(
            homeAccountId: "u.t", environment: "e", clientId: "c", realm: "t", target: "s", secret: "at",
            tokenType: "Bearer", cachedAt: expiresOn - 3600, expiresOn: expiresOn, extendedExpiresOn: nil,
            refreshOn: refreshOn)
    }

    private func date(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }

    func testALittleLessThanTheBufferLeftIsExpired() {
        let edge = Double(expiresOn - 300)
        XCTAssertEqual(AccessTokenStatus(token(), at: date(edge - 0.5), buffer: 300), .valid(refreshNeeded: false))
        XCTAssertEqual(AccessTokenStatus(token(), at: date(edge), buffer: 300), .valid(refreshNeeded: false))
        XCTAssertEqual(AccessTokenStatus(token(), at: date(edge + 0.63), buffer: 300), .expired, "299.37 s left")
        XCTAssertEqual(AccessTokenStatus(token(), at: date(edge + 0.001), buffer: 300), .expired)
    }

    func testAFractionalBufferCountsAsTheNextWholeSecond() {
        let edge = Double(expiresOn - 300)
        XCTAssertEqual(AccessTokenStatus(token(), at: date(edge - 1), buffer: 299.5), .valid(refreshNeeded: false))
        XCTAssertEqual(AccessTokenStatus(token(), at: date(edge + 0.2), buffer: 299.5), .expired)
    }

    func testRefreshOnPassesAtFullPrecision() {
        let refreshOn = expiresOn - 1800
        let status = { (seconds: Double) in
            AccessTokenStatus(self.token(refreshOn: refreshOn), at: self.date(seconds), buffer: 300)
        }
        XCTAssertEqual(status(Double(refreshOn)), .valid(refreshNeeded: false))
        XCTAssertEqual(status(Double(refreshOn) + 0.01), .valid(refreshNeeded: true))
    }
}
