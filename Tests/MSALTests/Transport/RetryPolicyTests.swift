import Foundation
import XCTest

@testable import MSAL

final class RetryPolicyTests: XCTestCase {
    private let policy = RetryPolicy()

    func testDefaultsMatchMSAL() {
        XCTAssertEqual(policy.retryCount, 1)
        XCTAssertEqual(policy.retryInterval, 0.5)
        XCTAssertEqual(MSALGlobalConfig.httpConfig.retryCount, 1)
        XCTAssertEqual(MSALGlobalConfig.httpConfig.retryInterval, 0.5)
        XCTAssertEqual(MSALGlobalConfig.httpConfig.timeoutIntervalForRequest, 300)
    }

    func testServerErrorsAreRetriedOnce() {
        for status in [500, 502, 503, 504, 599] {
            XCTAssertEqual(policy.delay(afterStatus: status, retriesSoFar: 0), 0.5, "\(status)")
            XCTAssertNil(policy.delay(afterStatus: status, retriesSoFar: 1), "\(status)")
        }
    }

    func testClientErrorsThrottlingAndSuccessAreNeverRetried() {
        for status in [200, 204, 301, 400, 401, 403, 404, 429, 499, 600] {
            XCTAssertNil(policy.delay(afterStatus: status, retriesSoFar: 0), "\(status)")
        }
    }

    func testTheFiveTransientNetworkErrorsAreRetried() {
        let expected: [(Int, Double)] = [
            (URLError.Code.timedOut.rawValue, 0.5),
            (URLError.Code.cannotFindHost.rawValue, 0.5),
            (URLError.Code.cannotConnectToHost.rawValue, 0.5),
            (URLError.Code.networkConnectionLost.rawValue, 0.5),
            (URLError.Code.notConnectedToInternet.rawValue, 2.0),
        ]
        for (code, delay) in expected {
            XCTAssertEqual(policy.delay(afterURLError: code, retriesSoFar: 0), delay, "\(code)")
            XCTAssertNil(policy.delay(afterURLError: code, retriesSoFar: 1), "\(code)")
        }
    }

    func testOtherNetworkErrorsAreNotRetried() {
        for code in [
            URLError.Code.cancelled.rawValue, URLError.Code.serverCertificateUntrusted.rawValue,
            URLError.Code.secureConnectionFailed.rawValue,
            URLError.Code.badServerResponse.rawValue, URLError.Code.unknown.rawValue,
        ] {
            XCTAssertNil(policy.delay(afterURLError: code, retriesSoFar: 0), "\(code)")
        }
    }

    func testRetryCountAndIntervalAreConfigurable() {
        let custom = RetryPolicy(retryCount: 3, retryInterval: 0.01)
        XCTAssertEqual(custom.delay(afterStatus: 503, retriesSoFar: 2), 0.01)
        XCTAssertNil(custom.delay(afterStatus: 503, retriesSoFar: 3))
        XCTAssertNil(RetryPolicy(retryCount: 0).delay(afterStatus: 500, retriesSoFar: 0))
    }

    func testGlobalPolicyFollowsHTTPConfig() {
        let config = MSALGlobalConfig.httpConfig
        let saved = (config.retryCount, config.retryInterval)
        defer { (config.retryCount, config.retryInterval) = saved }
        config.retryCount = 2
        config.retryInterval = 0.25
        XCTAssertEqual(RetryPolicy.global.retryCount, 2)
        XCTAssertEqual(RetryPolicy.global.retryInterval, 0.25)
        config.retryCount = -5
        XCTAssertEqual(config.retryCount, 0)
    }
}
