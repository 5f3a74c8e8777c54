import XCTest

@testable import MSAL

final class FormURLEncodingTests: XCTestCase {
    func testUnreservedCharactersAreKept() {
        XCTAssertEqual(FormURLEncoding.encode([("a", "AZaz09*-._")]), "a=AZaz09*-._")
    }

    func testSpaceBecomesPlusAndReservedCharactersArePercentEncoded() {
        let encoded = FormURLEncoding.encode([
            ("scope", "openid profile offline_access https://graph.microsoft.com/.default"),
            ("redirect_uri", "http://localhost:8400/cb?x=1&y=2"),
        ])
        XCTAssertEqual(
            encoded,
            "scope=openid+profile+offline_access+https%3A%2F%2Fgraph.microsoft.com%2F.default"
                + "&redirect_uri=http%3A%2F%2Flocalhost%3A8400%2Fcb%3Fx%3D1%26y%3D2"
        )
    }

    func testPlusPercentTildeAndUnicodeAreEncodedAsUTF8() {
        XCTAssertEqual(FormURLEncoding.encode([("p", "a+b%c~é€")]), "p=a%2Bb%25c%7E%C3%A9%E2%82%AC")
    }

    func testOrderIsKeptAndEmptyValuesAllowed() {
        XCTAssertEqual(FormURLEncoding.encode([("b", "2"), ("a", ""), ("c", "3")]), "b=2&a=&c=3")
        XCTAssertEqual(FormURLEncoding.encode([]), "")
    }

    func testDecodeInvertsEncode() throws {
        let pairs = [("grant_type", "refresh_token"), ("refresh_token", "0.AAA+/=="), ("scope", "a b\tc é")]
        let decoded = try XCTUnwrap(FormURLEncoding.decode(FormURLEncoding.encode(pairs)))
        XCTAssertEqual(decoded.map(\.name), pairs.map(\.0))
        XCTAssertEqual(decoded.map(\.value), pairs.map(\.1))
    }

    func testDecodeRejectsMalformedEscapesAndInvalidUTF8() {
        XCTAssertNil(FormURLEncoding.decode("a=%4"))
        XCTAssertNil(FormURLEncoding.decode("a=%zz"))
        XCTAssertNil(FormURLEncoding.decode("a=%ff%fe"))
    }

    /// The encoder copies runs of unreserved bytes eight at a time; a plain byte-by-byte encoder
    /// must agree for escapes at every position around those steps.
    func testAgreesWithAByteByByteEncoderAtEveryPosition() {
        func reference(_ string: String) -> String {
            var output = ""
            for byte in string.utf8 {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."),
                    UInt8(ascii: "_"):
                    output.unicodeScalars.append(Unicode.Scalar(byte))
                case UInt8(ascii: " "):
                    output += "+"
                default:
                    output += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
                }
            }
            return output
        }
        let specials = [" ", "+", "%", "&", "=", "/", "é", "\u{0}", "~", "\u{7F}"]
        for length in [0, 1, 7, 8, 9, 15, 16, 17, 31] {
            for position in 0..<max(length, 1) {
                for special in specials {
                    var characters = Array(repeating: "r", count: length)
                    if length > 0 { characters[position] = special }
                    let value = characters.joined()
                    XCTAssertEqual(
                        FormURLEncoding.encode([("refresh_token", value)]), "refresh_token=" + reference(value),
                        "\(special) at \(position) of \(length)")
                }
            }
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
