import MSALNative
import XCTest

@testable import MSAL

/// The storage's decisions, as values, without files.
final class CacheStorageDecisionTests: XCTestCase {
    func testOnlyRegularFilesAreUsed() {
        XCTAssertEqual(CachePathDecision.decide(nil), .empty)
        XCTAssertEqual(CachePathDecision.decide(.regular), .use)
        for kind in [FileKind.fifo, .characterDevice, .blockDevice, .socket, .directory, .symbolicLink, .other] {
            XCTAssertEqual(CachePathDecision.decide(kind), .refuse(kind))
        }
    }

    func testWhatLooksCorruptOrEmptyIsJudgedOnlyUnderTheLocks() {
        for underLocks in [false, true] {
            for canLock in [false, true] {
                XCTAssertEqual(CacheReadDecision.decide(.document, underLocks: underLocks, canLock: canLock), .accept)
            }
        }
        XCTAssertEqual(CacheReadDecision.decide(.emptyFile, underLocks: false, canLock: true), .readAgainUnderLocks)
        XCTAssertEqual(CacheReadDecision.decide(.emptyFile, underLocks: false, canLock: false), .accept)
        XCTAssertEqual(CacheReadDecision.decide(.emptyFile, underLocks: true, canLock: true), .accept)
        XCTAssertEqual(CacheReadDecision.decide(.corrupt, underLocks: false, canLock: true), .readAgainUnderLocks)
        XCTAssertEqual(CacheReadDecision.decide(.corrupt, underLocks: false, canLock: false), .reportWithoutMoving)
        XCTAssertEqual(CacheReadDecision.decide(.corrupt, underLocks: true, canLock: true), .quarantine)
    }

    func testTheSweepRemovesOnlyUnlockedFilesOldEnough() {
        let second: Int64 = 1_000_000_000
        XCTAssertEqual(SweepDecision.minimumAgeNanoseconds, second)
        XCTAssertEqual(SweepDecision.minimumAgeOfLivePIDNanoseconds, 600 * second, "10 minutes")
        func decide(_ age: Int64, free: Bool, pid: Bool) -> SweepDecision {
            SweepDecision.decide(ageNanoseconds: age, lockIsFree: free, pidExists: pid)
        }
        // Locked: a live writer's, in any PID namespace.
        XCTAssertEqual(decide(3600 * second, free: false, pid: false), .keep)
        XCTAssertEqual(decide(3600 * second, free: false, pid: true), .keep)
        // Unlocked, its PID gone: a killed writer's, once past the moment before its lock.
        XCTAssertEqual(decide(second, free: true, pid: false), .remove)
        XCTAssertEqual(decide(second - 1, free: true, pid: false), .keep)
        // Unlocked, its PID here: only when surely left over.
        XCTAssertEqual(decide(599 * second, free: true, pid: true), .keep)
        XCTAssertEqual(decide(600 * second, free: true, pid: true), .remove)
        XCTAssertEqual(decide(-5 * second, free: true, pid: false), .keep, "a clock set back")
    }

    func testAnExtensionsLockIsTakenOverOnlyWhenStale() {
        let second: Int64 = 1_000_000_000
        func step(free: Bool, age: Int64, _ writer: ExtensionsLockObservation.Writer) -> ExtensionsLockStep {
            ExtensionsLockStep.decide(ExtensionsLockObservation(lockIsFree: free, ageNanoseconds: age, writer: writer))
        }
        // Held: always wait, however old, whoever wrote it.
        for writer in [ExtensionsLockObservation.Writer.notWritten, .alive, .gone] {
            XCTAssertEqual(step(free: false, age: 3600 * second, writer), .wait)
        }
        // Free, its writer killed: stale at once.
        XCTAssertEqual(step(free: true, age: 0, .gone), .takeOver)
        // Free and young: its creator is about to lock it, or its holder to delete it.
        XCTAssertEqual(step(free: true, age: second, .notWritten), .wait)
        XCTAssertEqual(step(free: true, age: second, .alive), .wait)
        // Free for as long as msal-extensions itself waits: stale.
        XCTAssertEqual(ExtensionsLockStep.staleAfterNanoseconds, 5 * second)
        XCTAssertEqual(step(free: true, age: 5 * second, .notWritten), .takeOver)
        XCTAssertEqual(step(free: true, age: 5 * second, .alive), .takeOver)
    }

    func testThePIDOfAnExtensionsLockfile() {
        XCTAssertEqual(ExtensionsLockObservation.pid(in: Array("4242 /usr/bin/az".utf8)), 4242)
        XCTAssertEqual(ExtensionsLockObservation.pid(in: Array("17".utf8)), 17)
        XCTAssertNil(ExtensionsLockObservation.pid(in: []))
        XCTAssertNil(ExtensionsLockObservation.pid(in: Array(" 12 x".utf8)))
        XCTAssertNil(ExtensionsLockObservation.pid(in: Array("99999999999 x".utf8)))
    }
}
