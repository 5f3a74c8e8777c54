import MSALNative
import XCTest

final class Base64URLTests: XCTestCase {
    /// RFC 4648 §10 test vectors (identical in the URL-safe alphabet), without padding.
    func testRFC4648Vectors() {
        let vectors = [
            ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ]
        for (plain, encoded) in vectors {
            XCTAssertEqual(Base64URL.encode(Array(plain.utf8)), encoded)
            XCTAssertEqual(Base64URL.decode(encoded), Array(plain.utf8))
        }
    }

    func testUsesTheURLSafeAlphabet() {
        XCTAssertEqual(Base64URL.encode([0xFB, 0xFF, 0xBF]), "-_-_")
        XCTAssertEqual(Base64URL.encode([0xFF, 0xFF]), "__8")
        XCTAssertEqual(Base64URL.decode("-_-_"), [0xFB, 0xFF, 0xBF])
        XCTAssertNil(Base64URL.decode("+/+/"), "the standard alphabet's + and / are not base64url")
    }

    func testDecodeAcceptsPaddingOrNot() {
        XCTAssertEqual(Base64URL.decode("Zg=="), Array("f".utf8))
        XCTAssertEqual(Base64URL.decode("Zm8="), Array("fo".utf8))
        XCTAssertEqual(Base64URL.decode("Zm8"), Array("fo".utf8))
        XCTAssertEqual(Base64URL.decode(Array("Zm9vYg==".utf8)), Array("foob".utf8))
    }

    func testDecodeRejectsInvalidInput() {
        let invalid = [
            "A", "AAAAA", "Zg=", "Zg===", "Zm9v=", "Zm9v====", "=", "==", "====", "A===", "Z=g=", "Zm 9v",
            " Zm9v", "Zm9v\n", "Zm9v.", "Zm9\u{e9}", "Zh", "Zm9", "Zm8=Zm8=",
        ]
        for string in invalid {
            XCTAssertNil(Base64URL.decode(string), "accepted \(string.debugDescription)")
        }
    }

    func testDecodeRejectsNonCanonicalTrailingBits() {
        XCTAssertEqual(Base64URL.decode("Zg"), [0x66])
        XCTAssertNil(Base64URL.decode("Zh"), "low bits of the last character must be zero")
        XCTAssertEqual(Base64URL.decode("Zm8"), [0x66, 0x6F])
        XCTAssertNil(Base64URL.decode("Zm9"))
    }

    func testRoundTripsEveryLengthAndByte() throws {
        for length in 0...67 {
            let bytes = try SecureRandom.bytes(length)
            let encoded = Base64URL.encode(bytes)
            XCTAssertFalse(encoded.contains("="))
            XCTAssertEqual(encoded.utf8.count, (length * 4 + 2) / 3)
            XCTAssertEqual(Base64URL.decode(encoded), bytes)
        }
        let all = (0...255).map { UInt8($0) }
        XCTAssertEqual(Base64URL.decode(Base64URL.encode(all)), all)
    }

    func testDecodesEveryTwoCharacterInputWithoutCrashing() {
        for a in 0...255 {
            for b in 0...255 {
                _ = Base64URL.decode([UInt8(a), UInt8(b)])
            }
        }
    }
}
