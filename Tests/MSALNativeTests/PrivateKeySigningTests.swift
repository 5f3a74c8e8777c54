import MSALNative
import MSALTestSupportNative
import XCTest

final class PrivateKeySigningTests: XCTestCase {
    func testRS256SignatureVerifiesThroughThePublishedJWK() throws {
        let key = try PrivateKey(.rsa(bits: 2048))
        let jwk = try key.publicJWK()
        XCTAssertEqual(Set(jwk.keys), ["kty", "n", "e"])
        XCTAssertEqual(jwk["kty"], "RSA")
        XCTAssertEqual(jwk["e"], "AQAB")
        let modulus = try XCTUnwrap(jwk["n"].flatMap(Base64URL.decode))
        XCTAssertEqual(modulus.count, 256)
        XCTAssertNotEqual(modulus.first, 0, "minimal encoding")

        let message = Array("header.payload".utf8)
        let signature = try key.sign(message, algorithm: "RS256")
        XCTAssertEqual(signature.count, 256)
        let publicKey = try JSONWebKey(kty: "RSA", n: jwk["n"], e: jwk["e"])
        XCTAssertTrue(try publicKey.verify(signature: signature, message: message, algorithm: "RS256"))
        XCTAssertFalse(try publicKey.verify(signature: signature, message: message + [0], algorithm: "RS256"))
        XCTAssertEqual(try key.sign(message, algorithm: "RS256"), signature, "PKCS#1 v1.5 is deterministic")
    }

    func testES256SignatureIsRawAndVerifiesThroughThePublishedJWK() throws {
        let key = try PrivateKey(.ecP256)
        let jwk = try key.publicJWK()
        XCTAssertEqual(Set(jwk.keys), ["kty", "crv", "x", "y"])
        XCTAssertEqual(jwk["kty"], "EC")
        XCTAssertEqual(jwk["crv"], "P-256")
        XCTAssertEqual(jwk["x"]?.count, 43)
        XCTAssertEqual(jwk["y"]?.count, 43)

        let publicKey = try JSONWebKey(kty: "EC", crv: jwk["crv"], x: jwk["x"], y: jwk["y"])
        for message in [[], Array("header.payload".utf8)] as [[UInt8]] {
            let first = try key.sign(message, algorithm: "ES256")
            let second = try key.sign(message, algorithm: "ES256")
            XCTAssertEqual(first.count, 64)
            XCTAssertNotEqual(first, second, "ECDSA uses a fresh nonce")
            XCTAssertTrue(try publicKey.verify(signature: first, message: message, algorithm: "ES256"))
            XCTAssertTrue(try publicKey.verify(signature: second, message: message, algorithm: "ES256"))
        }
    }

    func testCoordinatesWithLeadingZeroBytesKeepTheirFullLength() throws {
        // About 1 key in 128 has a coordinate starting with 0x00; a minimal encoding would drop it.
        for _ in 0..<5000 {
            let key = try PrivateKey(.ecP256)
            let jwk = try key.publicJWK()
            let x = try XCTUnwrap(jwk["x"].flatMap(Base64URL.decode))
            let y = try XCTUnwrap(jwk["y"].flatMap(Base64URL.decode))
            XCTAssertEqual(x.count, 32)
            XCTAssertEqual(y.count, 32)
            guard x[0] == 0 || y[0] == 0 else { continue }
            let publicKey = try JSONWebKey(kty: "EC", crv: "P-256", x: jwk["x"], y: jwk["y"])
            let signature = try key.sign([1, 2, 3], algorithm: "ES256")
            XCTAssertTrue(try publicKey.verify(signature: signature, message: [1, 2, 3], algorithm: "ES256"))
            return
        }
        XCTFail("no key with a leading zero coordinate in 5000 tries")
    }

    func testRejectsAlgorithmsThatDoNotFitTheKey() throws {
        let rsa = try PrivateKey(.rsa(bits: 2048))
        let ec = try PrivateKey(.ecP256)
        XCTAssertThrowsError(try rsa.sign([1], algorithm: "ES256")) { error in
            XCTAssertTrue(String(describing: error).contains("needs an EC key"), "\(error)")
        }
        XCTAssertThrowsError(try ec.sign([1], algorithm: "RS256")) { error in
            XCTAssertTrue(String(describing: error).contains("needs an RSA key"), "\(error)")
        }
        XCTAssertThrowsError(try ec.sign([1], algorithm: "HS256")) { error in
            XCTAssertTrue(String(describing: error).contains("unsupported signature algorithm"), "\(error)")
        }
    }
}
