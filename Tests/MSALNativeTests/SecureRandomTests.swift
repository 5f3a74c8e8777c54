import MSALNative
import XCTest

final class SecureRandomTests: XCTestCase {
    func testReturnsTheRequestedCount() throws {
        XCTAssertEqual(try SecureRandom.bytes(0), [])
        XCTAssertEqual(try SecureRandom.bytes(1).count, 1)
        XCTAssertEqual(try SecureRandom.bytes(4096).count, 4096)
    }

    func testValuesDiffer() throws {
        let samples = try (0..<100).map { _ in try SecureRandom.bytes(16) }
        XCTAssertEqual(Set(samples).count, samples.count)
        // 64 KiB of output uses every byte value.
        XCTAssertEqual(Set(try SecureRandom.bytes(65536)).count, 256)
    }

    func testRejectsNegativeCounts() {
        XCTAssertThrowsError(try SecureRandom.bytes(-1)) { error in
            XCTAssertTrue(String(describing: error).contains("-1"))
        }
    }
}
