import MSALNative
import XCTest

@testable import MSAL

final class TurnQueueTests: XCTestCase {
    func testTurnsAreTakenOneAtATimeInTheOrderAskedAcrossSuspensions() async throws {
        let turns = TurnQueue()
        let log = Locked<[String]>([])
        let first = Task {
            try await turns.withTurn {
                log.withLock { $0.append("first in") }
                // Suspended while holding the turn, as a write waiting for a lock file is.
                try await Task.sleep(for: .milliseconds(50))
                log.withLock { $0.append("first out") }
            }
        }
        while log.withLock({ $0.isEmpty }) { await Task.yield() }
        var others: [Task<Void, any Error>] = []
        for index in 0..<5 {
            others.append(
                Task {
                    try await turns.withTurn {
                        log.withLock { $0.append("\(index) in") }
                        await Task.yield()
                        log.withLock { $0.append("\(index) out") }
                    }
                })
            // Each asks after the one before it.
            try await Task.sleep(for: .milliseconds(5))
        }
        try await first.value
        for task in others { try await task.value }
        XCTAssertEqual(
            log.withLock { $0 },
            ["first in", "first out"] + (0..<5).flatMap { ["\($0) in", "\($0) out"] })
    }

    func testAnErrorGivesTheTurnBack() async throws {
        let turns = TurnQueue()
        struct Failure: Error {}
        do {
            try await turns.withTurn { throw Failure() }
            XCTFail("expected the error")
        } catch is Failure {}
        let ran = try await turns.withTurn { true }
        XCTAssertTrue(ran)
    }
}
