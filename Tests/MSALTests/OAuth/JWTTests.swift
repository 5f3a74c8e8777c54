import MSALNative
import MSALTestSupportNative
import XCTest

@testable import MSAL

final class JWTTests: XCTestCase {
    // RFC 7515 Appendix A.2 (RS256) and A.3 (ES256), exactly as published.
    private static let rfcPayload =
        "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
    private static let rfcRS256Token =
        "eyJhbGciOiJSUzI1NiJ9." + rfcPayload + "."
        + "cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W"
        + "2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkS"
        + "jtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnv"
        + "Wh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw"
    private static let rfcRSAModulus =
        "ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt"
        + "0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSX"
        + "ndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5"
        + "IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ"
    private static let rfcES256Token =
        "eyJhbGciOiJFUzI1NiJ9." + rfcPayload + "."
        + "DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"

    func testRFC7515ExamplesParseAndVerify() throws {
        let rsaToken = try JWT(compact: Self.rfcRS256Token)
        XCTAssertEqual(rsaToken.algorithm, "RS256")
        XCTAssertEqual(rsaToken.payload["iss"], "joe")
        XCTAssertEqual(rsaToken.payload["exp"]?.int64Value, 1_300_819_380)
        XCTAssertEqual(rsaToken.payload["http://example.com/is_root"], true)
        XCTAssertEqual(rsaToken.signingInput, Array(("eyJhbGciOiJSUzI1NiJ9." + Self.rfcPayload).utf8))
        XCTAssertEqual(rsaToken.signature.count, 256)
        let rsaKey = try JSONWebKey(kty: "RSA", n: Self.rfcRSAModulus, e: "AQAB")
        XCTAssertTrue(try rsaToken.verifySignature(using: rsaKey))

        let ecToken = try JWT(compact: Self.rfcES256Token)
        let ecKey = try JSONWebKey(
            kty: "EC", crv: "P-256", x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
            y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0")
        XCTAssertTrue(try ecToken.verifySignature(using: ecKey))
        XCTAssertThrowsError(try ecToken.verifySignature(using: rsaKey), "an ES256 token needs an EC key")
    }

    func testTokensSignedWithPrivateKeyVerify() throws {
        for (keyKind, algorithm) in [(PrivateKey.Algorithm.rsa(bits: 2048), "RS256"), (.ecP256, "ES256")] {
            let signer = try PrivateKey(keyKind)
            let other = try PrivateKey(keyKind)
            let token = try Self.token(
                header: ["alg": .string(algorithm), "kid": "k1", "typ": "JWT"],
                payload: ["sub": "alice", "exp": 1_900_000_000, "roles": ["a", "b"]], signer: signer,
                algorithm: algorithm)
            let jwt = try JWT(compact: token)
            XCTAssertEqual(jwt.keyID, "k1")
            XCTAssertEqual(jwt.payload["roles"]?[1], "b")
            XCTAssertTrue(try jwt.verifySignature(using: Self.publicKey(of: signer)))
            XCTAssertFalse(try jwt.verifySignature(using: Self.publicKey(of: other)))

            // The same signature over a different payload.
            let parts = token.split(separator: ".", omittingEmptySubsequences: false)
            let forgedPayload = Base64URL.encode(JSONValue.object(["sub": "mallory"]).serialized())
            let forged = try JWT(compact: "\(parts[0]).\(forgedPayload).\(parts[2])")
            XCTAssertFalse(try forged.verifySignature(using: Self.publicKey(of: signer)))
        }
    }

    func testMalformedShapesAreRejectedPrecisely() {
        let object = Base64URL.encode(Array("{\"alg\":\"RS256\"}".utf8))
        let cases: [(String, String)] = [
            ("", "JWT is empty"),
            ("abc", "JWT must have 3 parts separated by '.', found 1"),
            ("\(object).\(object)", "JWT must have 3 parts separated by '.', found 2"),
            ("\(object).\(object).sig.extra", "JWT must have 3 parts separated by '.', found 4"),
            ("....", "found 5"),
            ("..", "JWT header is empty"),
            ("\(object)..", "JWT payload is empty"),
            ("!!!.\(object).", "JWT header is not valid base64url"),
            ("\(object).e30=x.", "JWT payload is not valid base64url"),
            ("\(object).\(object).a", "JWT signature is not valid base64url"),
            ("\(object).\(object).a+b/", "JWT signature is not valid base64url"),
            ("\(Base64URL.encode(Array("not json".utf8))).\(object).", "JWT header is not valid JSON"),
            ("\(Base64URL.encode(Array("[1,2]".utf8))).\(object).", "JWT header is not a JSON object"),
            ("\(object).\(Base64URL.encode(Array("\"claims\"".utf8))).", "JWT payload is not a JSON object"),
            ("\(object).\(Base64URL.encode(Array("{\"a\":1".utf8))).", "JWT payload is not valid JSON"),
            (
                "\(object).\(Base64URL.encode([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D])).",
                "JWT payload is not valid JSON"
            ),
            (" \(object).\(object).", "JWT header is not valid base64url"),
            ("\(object).\(object).\u{e9}", "JWT signature is not valid base64url"),
        ]
        for (token, expected) in cases {
            XCTAssertThrowsError(try JWT(compact: token), token) { error in
                let message = String(describing: error)
                XCTAssertTrue(message.contains(expected), "\(message) lacks \(expected)")
                if token.count > 4 {
                    XCTAssertFalse(message.contains(token), "the message repeats the token")
                    XCTAssertFalse(message.contains(object), "the message repeats a part of the token")
                }
            }
        }
    }

    func testHugeInputIsRejectedQuickly() {
        let huge = String(repeating: "A", count: 2 << 20) + ".e30."
        XCTAssertThrowsError(try JWT(compact: huge)) { error in
            XCTAssertTrue(String(describing: error).contains("longer than the 1048576-byte limit"), "\(error)")
        }
        let manyDots = String(repeating: ".", count: 1 << 19)
        XCTAssertThrowsError(try JWT(compact: manyDots)) { error in
            XCTAssertTrue(String(describing: error).contains("found 524289"), "\(error)")
        }
        let deep = Base64URL.encode(Array((String(repeating: "[", count: 50_000)).utf8))
        XCTAssertThrowsError(try JWT(compact: "\(deep).e30."))
    }

    func testUnsignedAndUnsupportedAlgorithmsDoNotVerify() throws {
        let key = try Self.publicKey(of: PrivateKey(.ecP256))
        let unsigned = try JWT(compact: Base64URL.encode(Array("{\"alg\":\"none\"}".utf8)) + ".e30.")
        XCTAssertTrue(unsigned.signature.isEmpty)
        XCTAssertEqual(unsigned.payload, [:])
        assertVerifyThrows(unsigned, key, "unsecured (alg \"none\")")

        let hs256 = try JWT(compact: Base64URL.encode(Array("{\"alg\":\"HS256\"}".utf8)) + ".e30.c2ln")
        assertVerifyThrows(hs256, key, "JWT algorithm \"HS256\" is not supported")
        let noAlg = try JWT(compact: "e30.e30.c2ln")
        assertVerifyThrows(noAlg, key, "has no \"alg\"")
        let numericAlg = try JWT(compact: Base64URL.encode(Array("{\"alg\":256}".utf8)) + ".e30.c2ln")
        assertVerifyThrows(numericAlg, key, "\"alg\" is not a string")

        let emptySignature = try JWT(compact: Base64URL.encode(Array("{\"alg\":\"ES256\"}".utf8)) + ".e30.")
        XCTAssertFalse(try emptySignature.verifySignature(using: key))
    }

    func testDescriptionHidesClaims() throws {
        let jwt = try JWT(compact: Self.rfcRS256Token)
        XCTAssertEqual(String(describing: jwt), "JWT(alg: \"RS256\", kid: none, 3 claims)")
    }

    func testRandomInputNeverCrashes() {
        let alphabet = Array("AZaz09-_.=e3".utf8)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            let length = Int.random(in: 0..<60, using: &generator)
            let bytes = (0..<length).map { _ in alphabet.randomElement(using: &generator) ?? 0 }
            _ = try? JWT(compact: String(decoding: bytes, as: UTF8.self))
        }
    }

    private func assertVerifyThrows(
        _ jwt: JWT, _ key: JSONWebKey, _ fragment: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try jwt.verifySignature(using: key), file: file, line: line) { error in
            XCTAssertTrue(String(describing: error).contains(fragment), "\(error)", file: file, line: line)
        }
    }

    private static func token(
        header: JSONValue, payload: JSONValue, signer: PrivateKey, algorithm: String
    ) throws -> String {
        let input =
            Base64URL.encode(header.serialized(options: .sortedKeys)) + "."
            + Base64URL.encode(payload.serialized(options: .sortedKeys))
        return input + "." + Base64URL.encode(try signer.sign(Array(input.utf8), algorithm: algorithm))
    }

    private static func publicKey(of key: PrivateKey) throws -> JSONWebKey {
        let jwk = try key.publicJWK()
        return try JSONWebKey(
            kty: jwk["kty"] ?? "", n: jwk["n"], e: jwk["e"], crv: jwk["crv"], x: jwk["x"], y: jwk["y"])
    }
}
