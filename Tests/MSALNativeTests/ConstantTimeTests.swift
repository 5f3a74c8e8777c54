import MSALNative
import XCTest

final class ConstantTimeTests: XCTestCase {
    func testComparesBytes() {
        XCTAssertTrue(ConstantTime.equals([UInt8](), [UInt8]()))
        XCTAssertTrue(ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2, 3] as [UInt8]))
        XCTAssertFalse(ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2, 4] as [UInt8]))
        XCTAssertFalse(ConstantTime.equals([0, 2, 3] as [UInt8], [1, 2, 3] as [UInt8]))
        XCTAssertTrue(ConstantTime.equals([1, 2, 3][1...] as ArraySlice<UInt8>, [2, 3] as [UInt8]))
    }

    func testDifferentLengthsAreNotEqual() {
        XCTAssertFalse(ConstantTime.equals([1, 2] as [UInt8], [1, 2, 3] as [UInt8]))
        XCTAssertFalse(ConstantTime.equals([UInt8](), [0] as [UInt8]))
    }

    func testComparesStringsByUTF8() {
        XCTAssertTrue(ConstantTime.equals("state-123", "state-123"))
        XCTAssertFalse(ConstantTime.equals("state-123", "state-124"))
        XCTAssertFalse(ConstantTime.equals("state", "state-123"))
        XCTAssertFalse(ConstantTime.equals("\u{e9}", "e\u{301}"), "no Unicode normalization")
        XCTAssertTrue(ConstantTime.equals("", ""))
    }
}
