import Foundation
import Glibc
import MSALNative
import XCTest

final class IdentifierRandomTests: XCTestCase {
    private static func key(_ bytes: IdentifierRandom.Sixteen) -> [UInt8] {
        withUnsafeBytes(of: bytes) { Array($0) }
    }

    func testIdentifiersAreDistinctWithinAndAcrossThreads() async {
        let perTask = 5000
        let all = await withTaskGroup(of: [[UInt8]].self) { group in
            for _ in 0..<4 {
                group.addTask { (0..<perTask).map { _ in Self.key(IdentifierRandom.sixteenBytes()) } }
            }
            var all: [[UInt8]] = []
            for await batch in group { all += batch }
            return all
        }
        XCTAssertEqual(all.count, 4 * perTask)
        XCTAssertEqual(Set(all).count, all.count)
        // Not all zero, and not a constant byte: the buffer really was filled.
        XCTAssertGreaterThan(Set(all.flatMap { $0 }).count, 200)
    }

    /// A child made by `fork` starts with a copy of the parent's buffer; it must not hand out the
    /// bytes the parent hands out next.
    func testForkedChildDoesNotRepeatTheParentsIdentifiers() throws {
        _ = IdentifierRandom.sixteenBytes()  // this thread's buffer exists and is partly used
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        let count = 8
        let child = fork()
        if child == 0 {
            close(fds[0])
            var ids = [IdentifierRandom.Sixteen]()
            ids.reserveCapacity(count)
            for _ in 0..<count { ids.append(IdentifierRandom.sixteenBytes()) }
            let written = ids.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
            _exit(written == count * 16 ? 0 : 1)
        }
        XCTAssertGreaterThan(child, 0)
        close(fds[1])
        let parentIds = (0..<count).map { _ in Self.key(IdentifierRandom.sixteenBytes()) }
        var received = [UInt8](repeating: 0, count: count * 16)
        var total = 0
        while total < received.count {
            let n = received.withUnsafeMutableBytes { read(fds[0], $0.baseAddress! + total, $0.count - total) }
            if n <= 0 { break }
            total += n
        }
        close(fds[0])
        var status: Int32 = 0
        waitpid(child, &status, 0)
        XCTAssertEqual(total, count * 16)
        let childIds = stride(from: 0, to: total, by: 16).map { Array(received[$0..<($0 + 16)]) }
        XCTAssertTrue(Set(childIds).isDisjoint(with: Set(parentIds)), "the child repeated the parent's identifiers")
    }
}
