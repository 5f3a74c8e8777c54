import MSALNative
import XCTest

@testable import MSAL

final class SingleFlightTests: XCTestCase {
    func testConcurrentCallersShareOneRunPerKey() async throws {
        let flight = SingleFlight<String, Int>()
        let runs = Locked(0)
        let gate = Locked(false)
        try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for _ in 0..<100 {
                group.addTask {
                    try await flight.run("k") {
                        runs.withLock { $0 += 1 }
                        while !gate.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
                        return 42
                    }
                }
            }
            try await Task.sleep(for: .milliseconds(50))
            gate.withLock { $0 = true }
            var starters = 0
            for try await (value, started) in group {
                XCTAssertEqual(value, 42)
                if started { starters += 1 }
            }
            XCTAssertEqual(starters, 1)
        }
        XCTAssertEqual(runs.withLock { $0 }, 1)
        XCTAssertEqual(flight.count, 0)
        let again = try await flight.run("k") { 7 }
        XCTAssertEqual(again.value, 7)
    }

    func testErrorsAreSharedAndNotKept() async {
        struct Failure: Error {}
        let flight = SingleFlight<Int, Int>()
        do {
            _ = try await flight.run(1) { throw Failure() }
            XCTFail("expected the error")
        } catch {
            XCTAssertTrue(error is Failure)
        }
        let value = try? await flight.run(1) { 5 }
        XCTAssertEqual(value?.value, 5)
    }

    func testTheLeaderRunsInItsOwnTask() async throws {
        let flight = SingleFlight<String, Bool>()
        let cancelledInside = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                withUnsafeCurrentTask { task in task?.cancel() }
                return try await flight.run("k") { Task.isCancelled }.value
            }
            return try await group.next() ?? false
        }
        XCTAssertTrue(cancelledInside, "the operation sees its caller's task, not a new one")
    }

    func testFollowersStartOverWhenTheLeaderIsCancelled() async throws {
        struct Cancelled: Error {}
        let flight = SingleFlight<String, Int>()
        let runs = Locked(0)
        let leaderStarted = Locked(false)
        let leader = Task {
            try await flight.run("k") {
                runs.withLock { $0 += 1 }
                leaderStarted.withLock { $0 = true }
                while !Task.isCancelled { try await Task.sleep(for: .milliseconds(1)) }
                throw Cancelled()
            }
        }
        while !leaderStarted.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
        let follower = Task {
            try await flight.run("k") {
                runs.withLock { $0 += 1 }
                return 9
            }
        }
        try await Task.sleep(for: .milliseconds(20))
        leader.cancel()
        do {
            _ = try await leader.value
            XCTFail("the leader's own cancellation reaches it")
        } catch {
            XCTAssertTrue(error is Cancelled || error is CancellationError, "\(error)")
        }
        let followed = try await follower.value
        XCTAssertEqual(followed.value, 9, "the follower ran the operation again instead of failing")
        XCTAssertTrue(followed.started)
        XCTAssertEqual(runs.withLock { $0 }, 2)
        XCTAssertEqual(flight.count, 0)
    }
}
