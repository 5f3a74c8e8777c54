import MSALTestSupport
import XCTest

final class PlaceholderTests: XCTestCase {
    func testSupportLinks() {
        XCTAssertFalse(MSALTestSupportInfo.version.isEmpty)
    }
}
