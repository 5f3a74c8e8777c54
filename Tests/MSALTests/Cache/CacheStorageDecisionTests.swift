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
        // (A held lockfile is never judged: its `flock` is tried first.)
        // Its writer killed: stale at once.
        XCTAssertEqual(ExtensionsLockStep.decide(writer: .gone, ageNanoseconds: 0), .takeOver)
        // Young: its creator is about to lock it, or its holder to delete it.
        XCTAssertEqual(ExtensionsLockStep.decide(writer: .notWritten, ageNanoseconds: second), .wait)
        XCTAssertEqual(ExtensionsLockStep.decide(writer: .alive, ageNanoseconds: second), .wait)
        // Unlocked for as long as msal-extensions itself waits: stale.
        XCTAssertEqual(ExtensionsLockStep.staleAfterNanoseconds, 5 * second)
        XCTAssertEqual(ExtensionsLockStep.decide(writer: .notWritten, ageNanoseconds: 5 * second), .takeOver)
        XCTAssertEqual(ExtensionsLockStep.decide(writer: .alive, ageNanoseconds: 5 * second), .takeOver)
    }

    func testThePIDOfAnExtensionsLockfile() {
        XCTAssertEqual(ExtensionsLockStep.pid(in: Array("4242 /usr/bin/az".utf8)), 4242)
        XCTAssertEqual(ExtensionsLockStep.pid(in: Array("17".utf8)), 17)
        XCTAssertNil(ExtensionsLockStep.pid(in: []))
        XCTAssertNil(ExtensionsLockStep.pid(in: Array(" 12 x".utf8)))
        XCTAssertNil(ExtensionsLockStep.pid(in: Array("99999999999 x".utf8)))
    }
}
