import XCTest

@testable import MSAL

/// The wait for a lock another process holds, as values: no files, no sleeping.
final class LockWaitTests: XCTestCase {
    private let millisecond: Int64 = 1_000_000

    func testTheStepRetriesBeforeTheDeadlineAndGivesUpAtIt() {
        XCTAssertEqual(
            LockWait.step(now: 0, deadline: 100 * millisecond, pause: 2 * millisecond),
            .retry(afterNanoseconds: 2 * millisecond))
        // The last pause ends at the deadline, so the last try is made there.
        XCTAssertEqual(
            LockWait.step(now: 99 * millisecond, deadline: 100 * millisecond, pause: 2 * millisecond),
            .retry(afterNanoseconds: millisecond))
        XCTAssertEqual(LockWait.step(now: 100 * millisecond, deadline: 100 * millisecond, pause: 1), .giveUp)
        XCTAssertEqual(LockWait.step(now: 101 * millisecond, deadline: 100 * millisecond, pause: 1), .giveUp)
        XCTAssertEqual(LockWait.step(now: 0, deadline: 10, pause: 0), .retry(afterNanoseconds: 1), "never a busy loop")
    }

    func testPausesDoubleUpToTheirCap() {
        var wait = LockWait(timeout: 10, backoff: .fileLock, now: 0)
        var pauses: [Int64] = []
        for _ in 0..<5 {
            guard case .retry(let pause) = wait.next(now: 0) else { return XCTFail("gave up early") }
            pauses.append(pause)
        }
        XCTAssertEqual(pauses, [500_000, 1_000_000, 2_000_000, 2_000_000, 2_000_000])

        var refresh = LockWait(timeout: 10, backoff: .refreshLock, now: 0)
        pauses = (0..<6).compactMap {
            if case .retry(let pause) = refresh.next(now: Int64($0)) { return pause / millisecond }
            return nil
        }
        XCTAssertEqual(pauses, [2, 4, 8, 16, 32, 50])
    }

    func testTheNextLockOfSeveralStartsItsOwnPausesWithinTheSameDeadline() {
        var wait = LockWait(timeout: 1, backoff: .fileLock, now: 0)
        _ = wait.next(now: 0)
        _ = wait.next(now: 0)
        wait.continueWith(.extensionsLock)
        XCTAssertEqual(wait.next(now: 0), .retry(afterNanoseconds: millisecond))
        XCTAssertEqual(wait.next(now: 0), .retry(afterNanoseconds: 2 * millisecond))
        XCTAssertEqual(wait.deadline, 1_000 * millisecond)
        XCTAssertEqual(wait.next(now: 1_000 * millisecond), .giveUp)
    }

    func testTheDeadlineIsTheTimeoutFromTheStart() {
        XCTAssertEqual(LockWait(timeout: 2.5, backoff: .fileLock, now: 7).deadline, 7 + 2_500 * millisecond)
        XCTAssertEqual(LockWait(timeout: -1, backoff: .fileLock, now: 7).deadline, 7, "a negative timeout is none")
        XCTAssertTrue(LockWait(timeout: 0, backoff: .fileLock, now: 7).isOver(now: 7))
        XCTAssertFalse(
            LockWait(timeout: .infinity, backoff: .fileLock, now: 7).isOver(now: 1_000_000 * 1_000 * millisecond))
    }

    func testAWaitTriesUntilTakenOrGivesUpWithoutTheLock() throws {
        var tries = 0
        var wait = LockWait(timeout: 5, backoff: .fileLock)
        let taken = wait.blocking { () -> LockWait.Attempt<String> in
            tries += 1
            return tries == 3 ? .taken("lock") : .wait(.fileLock)
        }
        XCTAssertEqual(taken, "lock")
        XCTAssertEqual(tries, 3)

        var none = LockWait(timeout: 0, backoff: .fileLock)
        XCTAssertNil(none.blocking { () -> LockWait.Attempt<String> in .wait(.fileLock) })
    }

    func testACancelledTaskStillWaitsWhenItMustFinishItsWrite() async throws {
        let task = Task { () -> (String?, Bool) in
            withUnsafeCurrentTask { $0?.cancel() }
            var tries = 0
            var wait = LockWait(timeout: 5, backoff: .fileLock)
            let taken = try await wait.suspending(ignoringCancellation: true) { () -> LockWait.Attempt<String> in
                tries += 1
                return tries == 4 ? .taken("lock") : .wait(.fileLock)
            }
            var cancellable = LockWait(timeout: 5, backoff: .fileLock)
            let gaveUp: Bool
            do {
                _ = try await cancellable.suspending { () -> LockWait.Attempt<String> in .wait(.fileLock) }
                gaveUp = false
            } catch is CancellationError {
                gaveUp = true
            }
            return (taken, gaveUp)
        }
        let (taken, cancelled) = try await task.value
        XCTAssertEqual(taken, "lock")
        XCTAssertTrue(cancelled, "a wait that may be abandoned ends with the task")
    }
}
