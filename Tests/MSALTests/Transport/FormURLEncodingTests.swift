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
}
