import MSALNative
import MSALTestSupportNative
import XCTest

final class JSONWebKeyTests: XCTestCase {
    private typealias A2 = RFC7515Examples.A2
    private typealias A3 = RFC7515Examples.A3

    func testVerifiesRFC7515AppendixA2RS256() throws {
        let key = try JSONWebKey(kty: "RSA", n: A2.n, e: A2.e)
        let signature = try XCTUnwrap(Base64URL.decode(A2.signature))
        XCTAssertTrue(try key.verify(signature: signature, message: Array(A2.signingInput.utf8), algorithm: "RS256"))

        XCTAssertFalse(
            try key.verify(signature: signature, message: Array((A2.signingInput + "x").utf8), algorithm: "RS256"))
        var tampered = signature
        tampered[10] ^= 0x01
        XCTAssertFalse(try key.verify(signature: tampered, message: Array(A2.signingInput.utf8), algorithm: "RS256"))
        XCTAssertFalse(
            try key.verify(
                signature: Array(signature.dropLast()), message: Array(A2.signingInput.utf8), algorithm: "RS256"))
        XCTAssertFalse(try key.verify(signature: [], message: Array(A2.signingInput.utf8), algorithm: "RS256"))
    }

    func testVerifiesRFC7515AppendixA3ES256() throws {
        let key = try JSONWebKey(kty: "EC", crv: "P-256", x: A3.x, y: A3.y, kid: "a3", alg: "ES256")
        XCTAssertEqual(key.keyID, "a3")
        XCTAssertEqual(key.curve, "P-256")
        let signature = try XCTUnwrap(Base64URL.decode(A3.signature))
        XCTAssertEqual(signature.count, 64)
        let message = Array(A3.signingInput.utf8)
        XCTAssertTrue(try key.verify(signature: signature, message: message, algorithm: "ES256"))

        XCTAssertFalse(try key.verify(signature: signature, message: message + [0x20], algorithm: "ES256"))
        for index in [0, 31, 32, 63] {
            var tampered = signature
            tampered[index] ^= 0x80
            XCTAssertFalse(try key.verify(signature: tampered, message: message, algorithm: "ES256"))
        }
        XCTAssertFalse(try key.verify(signature: Array(signature.dropLast()), message: message, algorithm: "ES256"))
        XCTAssertFalse(try key.verify(signature: signature + [0], message: message, algorithm: "ES256"))
        XCTAssertFalse(try key.verify(signature: [], message: message, algorithm: "ES256"))
        XCTAssertFalse(
            try key.verify(signature: [UInt8](repeating: 0, count: 64), message: message, algorithm: "ES256"))
    }

    func testAcceptsAModulusWithALeadingZeroByte() throws {
        let modulus = try XCTUnwrap(Base64URL.decode(A2.n))
        let key = try JSONWebKey(kty: "RSA", n: Base64URL.encode([0] + modulus), e: A2.e)
        let signature = try XCTUnwrap(Base64URL.decode(A2.signature))
        XCTAssertTrue(try key.verify(signature: signature, message: Array(A2.signingInput.utf8), algorithm: "RS256"))
    }

    func testRejectsUnsupportedAlgorithmsAndMismatches() throws {
        let rsa = try JSONWebKey(kty: "RSA", n: A2.n, e: A2.e)
        let ec = try JSONWebKey(kty: "EC", crv: "P-256", x: A3.x, y: A3.y)
        assertThrows(
            try rsa.verify(signature: [1], message: [1], algorithm: "HS256"), "unsupported signature algorithm")
        assertThrows(try rsa.verify(signature: [1], message: [1], algorithm: "none"), "unsupported signature algorithm")
        assertThrows(
            try rsa.verify(signature: [1], message: [1], algorithm: "rs256"), "unsupported signature algorithm")
        assertThrows(try rsa.verify(signature: [1], message: [1], algorithm: "ES256"), "needs an EC key")
        assertThrows(try ec.verify(signature: [1], message: [1], algorithm: "RS256"), "needs an RSA key")
        assertThrows(try JSONWebKey(kty: "RSA", n: A2.n, e: A2.e, alg: "ES256"), "needs kty EC")
        assertThrows(try JSONWebKey(kty: "RSA", n: A2.n, e: A2.e, alg: "PS256"), "unsupported signature algorithm")
    }

    func testRejectsMalformedKeys() throws {
        assertThrows(try JSONWebKey(kty: "oct"), "unsupported key type 'oct'")
        assertThrows(try JSONWebKey(kty: "OKP", crv: "Ed25519", x: A3.x), "unsupported key type")
        assertThrows(try JSONWebKey(kty: "RSA", e: A2.e), "needs 'n'")
        assertThrows(try JSONWebKey(kty: "RSA", n: A2.n), "needs 'e'")
        assertThrows(try JSONWebKey(kty: "RSA", n: A2.n + "=", e: A2.e), "'n' is not valid")
        assertThrows(try JSONWebKey(kty: "RSA", n: "", e: A2.e), "'n' is not valid")
        assertThrows(try JSONWebKey(kty: "RSA", n: A2.n, e: "AQAA"), "odd public exponent")
        assertThrows(try JSONWebKey(kty: "RSA", n: A2.n, e: "AQ"), "odd public exponent")
        assertThrows(try JSONWebKey(kty: "RSA", n: A2.n, e: "AQAAAAAAAAAB"), "odd public exponent")
        assertThrows(try JSONWebKey(kty: "RSA", n: "AQAB", e: A2.e), "has 17 bits")
        assertThrows(try JSONWebKey(kty: "EC", x: A3.x, y: A3.y), "needs 'crv'")
        assertThrows(try JSONWebKey(kty: "EC", crv: "P-384", x: A3.x, y: A3.y), "unsupported curve 'P-384'")
        assertThrows(try JSONWebKey(kty: "EC", crv: "P-256", x: A3.x), "needs 'y'")
        assertThrows(try JSONWebKey(kty: "EC", crv: "P-256", x: "AAAA", y: A3.y), "must be 32 bytes")
        var y = try XCTUnwrap(Base64URL.decode(A3.y))
        y[31] ^= 0x01
        assertThrows(try JSONWebKey(kty: "EC", crv: "P-256", x: A3.x, y: Base64URL.encode(y)), "not on P-256")
    }

    func testRejectsSmallRSAModuli() throws {
        let small = try PrivateKey(.rsa(bits: 1024)).publicJWK()
        assertThrows(try JSONWebKey(kty: "RSA", n: small["n"], e: small["e"]), "1024 bits")
    }

    func testErrorsQuoteUntrustedValuesBriefly() {
        assertThrows(try JSONWebKey(kty: String(repeating: "k", count: 500) + "\n"), "...'")
    }

    private func assertThrows<T>(
        _ expression: @autoclosure () throws -> T, _ fragment: String, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        XCTAssertThrowsError(try expression(), file: file, line: line) { error in
            let text = String(describing: error)
            XCTAssertTrue(text.contains(fragment), "\(text) lacks \(fragment)", file: file, line: line)
            XCTAssertLessThan(text.count, 300, file: file, line: line)
        }
    }
}
