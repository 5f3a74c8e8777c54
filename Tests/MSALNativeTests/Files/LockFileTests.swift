import Foundation
import Glibc
import MSALNative
import XCTest

final class LockFileTests: XCTestCase {
    private var folder = ""

    override func setUp() {
        folder = FileTestFolder.make()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: folder)
    }

    func testTwoOpeningsExcludeEachOtherUntilUnlockedOrClosed() throws {
        let path = folder + "/cache.json.lock"
        let first = try XCTUnwrap(LockFile.open(path))
        XCTAssertEqual(try first.status().permissions, 0o600)
        var second: LockFile? = try XCTUnwrap(LockFile.open(path))
        XCTAssertTrue(try first.tryLock())
        XCTAssertFalse(try second!.tryLock())
        first.unlock()
        XCTAssertTrue(try second!.tryLock())
        XCTAssertFalse(try first.tryLock())
        second = nil  // closing releases
        XCTAssertTrue(try first.tryLock())
        XCTAssertNil(try LockFile.open(folder + "/missing", create: false))
    }

    func testALockFileRemovedOrReplacedIsNoLongerAtItsPath() throws {
        let path = folder + "/cache.json.lock"
        let held = try XCTUnwrap(LockFile.open(path))
        XCTAssertTrue(try held.tryLock())
        XCTAssertTrue(try held.isStillAtPath())
        XCTAssertTrue(try FileSystem.remove(path))
        XCTAssertFalse(try held.isStillAtPath(), "removed")
        let newcomer = try XCTUnwrap(LockFile.open(path))
        XCTAssertTrue(try newcomer.tryLock(), "a new file at the path has a free lock")
        XCTAssertFalse(try held.isStillAtPath(), "another file at the path")
        XCTAssertTrue(try newcomer.isStillAtPath())
    }

    func testAPlantedSymbolicLinkIsRefusedAndCreatesNothing() throws {
        let target = folder + "/somewhere-else"
        let path = folder + "/cache.json.lock"
        XCTAssertEqual(symlink(target, path), 0)
        XCTAssertThrowsError(try LockFile.open(path)) { error in
            XCTAssertTrue((error as? FileError)?.isSymbolicLink == true, "\(error)")
        }
        XCTAssertNil(try FileSystem.status(target))
        XCTAssertThrowsError(try LockFile.openExistingForLocking(path))
    }

    func testAFIFOIsRefusedWithoutBlocking() throws {
        let path = folder + "/cache.json.lock"
        XCTAssertEqual(mkfifo(path, 0o600), 0)
        XCTAssertThrowsError(try LockFile.open(path))
    }

    func testContentsAreReplacedAndRead() throws {
        let path = folder + "/cache.json.lockfile"
        let file = try XCTUnwrap(LockFile.open(path, truncate: true))
        try file.replaceContents(Array("12 /usr/bin/python3".utf8))
        try file.replaceContents(Array("3 x".utf8))
        XCTAssertEqual(String(decoding: try file.contents(), as: UTF8.self), "3 x")
        let other = try XCTUnwrap(LockFile.openExistingForLocking(path))
        XCTAssertTrue(try other.tryLock())
        XCTAssertFalse(try file.tryLock())
        XCTAssertNil(try LockFile.openExistingForLocking(folder + "/missing"))
    }
}
