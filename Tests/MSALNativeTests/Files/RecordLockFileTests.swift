import Foundation
import MSALNative
import XCTest

final class RecordLockFileTests: XCTestCase {
    private var folder = ""

    override func setUp() {
        folder = FileTestFolder.make()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Whether another process can take the byte at `offset` of `path` now (`lockf` in Python).
    private func isFreeForAnotherProcess(_ path: String, offset: Int) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            "-c",
            """
            import fcntl, os, sys
            fd = os.open(sys.argv[1], os.O_RDWR)
            try:
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, int(sys.argv[2]))
                print("free")
            except OSError:
                print("busy")
            """,
            path, String(offset),
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text.trimmingCharacters(in: .whitespacesAndNewlines) == "free"
    }

    func testABytesLockIsBusyForOtherProcessesAndForThisOne() throws {
        let path = folder + "/cache.json.refresh.lock"
        let first = try RecordLockFile(path: path)
        let second = try RecordLockFile(path: path)
        XCTAssertTrue(try first.tryLock(byte: 7))
        XCTAssertFalse(try second.tryLock(byte: 7), "the same process, another user of the file")
        XCTAssertFalse(try first.tryLock(byte: 7))
        XCTAssertTrue(try second.tryLock(byte: 8))
        XCTAssertFalse(try isFreeForAnotherProcess(path, offset: 7))
        first.unlock(byte: 7)
        XCTAssertTrue(try isFreeForAnotherProcess(path, offset: 7))
        XCTAssertTrue(try second.tryLock(byte: 7))
    }

    func testClosingOneUserKeepsTheOthersLocks() throws {
        let path = folder + "/cache.json.refresh.lock"
        let holder = try RecordLockFile(path: path)
        XCTAssertTrue(try holder.tryLock(byte: 3))
        do {
            let passing = try RecordLockFile(path: path)
            XCTAssertFalse(try passing.tryLock(byte: 3))
        }
        // With a descriptor of its own, the passing user's close would have dropped byte 3.
        XCTAssertFalse(try isFreeForAnotherProcess(path, offset: 3))
        XCTAssertTrue(RecordLockFile.isOpen(path: path))
        holder.unlock(byte: 3)
        XCTAssertTrue(try isFreeForAnotherProcess(path, offset: 3))
    }

    func testTheFileClosesWithItsLastUser() throws {
        let path = folder + "/cache.json.refresh.lock"
        var only: RecordLockFile? = try RecordLockFile(path: path)
        XCTAssertTrue(try only!.tryLock(byte: 1))
        only = nil
        XCTAssertFalse(RecordLockFile.isOpen(path: path))
        XCTAssertTrue(try isFreeForAnotherProcess(path, offset: 1))
    }

    func testAPlantedLinkIsRefused() throws {
        let path = folder + "/cache.json.refresh.lock"
        XCTAssertEqual(symlink(folder + "/elsewhere", path), 0)
        XCTAssertThrowsError(try RecordLockFile(path: path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/elsewhere"))
    }
}
