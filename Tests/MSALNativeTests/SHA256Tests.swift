import MSALNative
import XCTest

final class SHA256Tests: XCTestCase {
    /// FIPS 180-4 / NIST example vectors.
    func testKnownAnswers() {
        XCTAssertEqual(
            Hex.string(SHA256.hash("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(
            Hex.string(SHA256.hash("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(
            Hex.string(SHA256.hash("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(
            Hex.string(SHA256.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    func testSequenceKindsAgree() {
        let bytes = Array("hello".utf8)
        let expected = SHA256.hash(bytes)
        XCTAssertEqual(SHA256.hash("hello"), expected)
        XCTAssertEqual(SHA256.hash(bytes[...]), expected)
        XCTAssertEqual(SHA256.hash(bytes.lazy.map { $0 }), expected, "non-contiguous sequence")
        XCTAssertEqual(SHA256.hash([UInt8]()).count, SHA256.byteCount)
    }
}
