import MSALNative
import XCTest

final class SecureBytesTests: XCTestCase {
    func testHoldsACopyOfTheBytes() {
        var source: [UInt8] = [1, 2, 3, 4]
        let secret = SecureBytes(source)
        source[0] = 9
        XCTAssertEqual(secret.count, 4)
        XCTAssertEqual(secret.withUnsafeBytes { Array($0) }, [1, 2, 3, 4])
        XCTAssertTrue(secret.constantTimeEquals([1, 2, 3, 4]))
        XCTAssertFalse(secret.constantTimeEquals([1, 2, 3, 5]))
    }

    func testEmpty() {
        let secret = SecureBytes([UInt8]())
        XCTAssertEqual(secret.count, 0)
        XCTAssertEqual(secret.withUnsafeBytes { $0.count }, 0)
    }

    func testRandomInit() throws {
        let a = try SecureBytes(randomCount: 32)
        let b = try SecureBytes(randomCount: 32)
        XCTAssertEqual(a.count, 32)
        XCTAssertFalse(a.constantTimeEquals(b.withUnsafeBytes { Array($0) }))
        XCTAssertEqual(try SecureBytes(randomCount: 0).count, 0)
        XCTAssertThrowsError(try SecureBytes(randomCount: -1))
    }

    func testWithUnsafeBytesRethrowsTypedErrors() {
        struct Marker: Error {}
        let secret = SecureBytes([1])
        XCTAssertThrowsError(try secret.withUnsafeBytes { _ throws(Marker) in throw Marker() }) { error in
            XCTAssertTrue(error is Marker)
        }
    }

    func testManyInstancesAreReleased() throws {
        // deinit runs OPENSSL_cleanse and frees the storage; this exercises it many times.
        for _ in 0..<10_000 {
            _ = try SecureBytes(randomCount: 64).count
        }
    }
}
