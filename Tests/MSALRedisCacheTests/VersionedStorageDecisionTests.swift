import XCTest

@testable import MSAL

/// The pure decisions behind a versioned (shared) storage: when a read asks for the version, and
/// what a change does after its compare-and-set save.
final class VersionedStorageDecisionTests: XCTestCase {
    func testReadDecision() {
        XCTAssertEqual(VersionedReadDecision.decide(loaded: false, sinceCheck: 0, staleness: 10), .load)
        XCTAssertEqual(VersionedReadDecision.decide(loaded: true, sinceCheck: 0, staleness: 0), .checkVersion)
        XCTAssertEqual(VersionedReadDecision.decide(loaded: true, sinceCheck: 0.5, staleness: 1), .serveFromMemory)
        XCTAssertEqual(VersionedReadDecision.decide(loaded: true, sinceCheck: 1, staleness: 1), .checkVersion)
        XCTAssertEqual(VersionedReadDecision.decide(loaded: true, sinceCheck: -5, staleness: 60), .checkVersion)
    }

    func testWriteDecision() {
        func decide(_ outcome: MSALCacheSaveOutcome, attempt: Int, elapsed: Double = 0, jitter: Double = 0.5)
            -> VersionedWriteDecision
        {
            VersionedWriteDecision.decide(outcome, attempt: attempt, elapsed: elapsed, timeout: 10, jitter: jitter)
        }
        XCTAssertEqual(decide(.saved(version: 9), attempt: 1), .done(version: 9))
        XCTAssertEqual(decide(.saved(version: 9), attempt: 5, elapsed: 30), .done(version: 9))
        XCTAssertEqual(decide(.fenced, attempt: 1), .dropFenced)
        XCTAssertEqual(decide(.conflict, attempt: 1, jitter: 0.99), .reloadAndRetry(pauseMilliseconds: 0))
        XCTAssertEqual(decide(.conflict, attempt: 2, jitter: 0.5), .reloadAndRetry(pauseMilliseconds: 1))
        XCTAssertEqual(decide(.conflict, attempt: 4, jitter: 0.5), .reloadAndRetry(pauseMilliseconds: 4))
        XCTAssertEqual(decide(.conflict, attempt: 100, jitter: 0.999), .reloadAndRetry(pauseMilliseconds: 31))
        XCTAssertEqual(decide(.conflict, attempt: 3, elapsed: 10), .giveUp)
    }

    func testRefreshLeaseWaitDecision() {
        func decide(_ attempt: Int, elapsed: Double = 0, jitter: Double = 0) -> RefreshLeaseWaitDecision {
            RefreshLeaseWaitDecision.decide(attempt: attempt, elapsed: elapsed, leaseDuration: 30, jitter: jitter)
        }
        XCTAssertEqual(decide(1), .retry(pauseMilliseconds: 2))
        XCTAssertEqual(decide(1, jitter: 0.999), .retry(pauseMilliseconds: 4))
        XCTAssertEqual(decide(3), .retry(pauseMilliseconds: 10))
        XCTAssertEqual(decide(50, jitter: 0.999), .retry(pauseMilliseconds: 99))
        XCTAssertEqual(decide(50, elapsed: 59.9), .retry(pauseMilliseconds: 50))
        XCTAssertEqual(decide(2, elapsed: 60), .giveUp)
    }
}
