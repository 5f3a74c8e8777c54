import Foundation
import XCTest

@testable import MSAL

final class CorrelationIDTests: XCTestCase {
    func testNewIdsAreVersionFourRFC4122AndDistinct() {
        var seen = Set<UUID>()
        for _ in 0..<1000 {
            let id = CorrelationID.make()
            XCTAssertEqual(id.uuid.6 >> 4, 4, "version")
            XCTAssertEqual(id.uuid.8 >> 6, 0b10, "variant")
            seen.insert(id)
        }
        XCTAssertEqual(seen.count, 1000)
    }

    func testStringMatchesFoundationsUUIDString() throws {
        let fixed = try XCTUnwrap(UUID(uuidString: "00FF10AB-9C8D-4E7F-A0B1-C2D3E4F5A6B7"))
        XCTAssertEqual(CorrelationID.string(fixed), "00FF10AB-9C8D-4E7F-A0B1-C2D3E4F5A6B7")
        for _ in 0..<200 {
            let id = CorrelationID.make()
            XCTAssertEqual(CorrelationID.string(id), id.uuidString)
        }
    }
}
