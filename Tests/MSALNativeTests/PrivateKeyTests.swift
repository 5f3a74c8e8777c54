import MSALNative
import MSALTestSupportNative
import XCTest

final class PrivateKeyTests: XCTestCase {
    func testGeneratesRSAAndECKeysAsPEM() throws {
        let rsa = try PrivateKey(.rsa(bits: 2048))
        XCTAssertTrue(try rsa.privateKeyPEM().hasPrefix("-----BEGIN PRIVATE KEY-----"))
        XCTAssertTrue(try rsa.publicKeyPEM().hasPrefix("-----BEGIN PUBLIC KEY-----"))
        let ec = try PrivateKey(.ecP256)
        XCTAssertNotEqual(try ec.publicKeyPEM(), try rsa.publicKeyPEM())
    }
}
