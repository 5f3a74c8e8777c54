import XCTest

@testable import MSAL

final class PKCETests: XCTestCase {
    /// RFC 7636 Appendix B.
    func testRFC7636AppendixB() {
        let pkce = PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        XCTAssertEqual(pkce.challenge, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        XCTAssertEqual(PKCE.method, "S256")
        XCTAssertTrue(PKCE.isValidVerifier(pkce.verifier))
    }

    func testGeneratedVerifiersAreValidAndUnique() throws {
        var verifiers = Set<String>()
        for _ in 0..<200 {
            let pkce = try PKCE()
            XCTAssertEqual(pkce.verifier.count, 43)
            XCTAssertEqual(pkce.challenge.count, 43)
            XCTAssertTrue(PKCE.isValidVerifier(pkce.verifier), pkce.verifier)
            XCTAssertTrue(pkce.verifier.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_".contains($0)) })
            XCTAssertFalse(pkce.challenge.contains("="))
            XCTAssertEqual(PKCE(verifier: pkce.verifier).challenge, pkce.challenge)
            verifiers.insert(pkce.verifier)
        }
        XCTAssertEqual(verifiers.count, 200)
    }

    func testVerifierValidation() {
        XCTAssertFalse(PKCE.isValidVerifier(String(repeating: "a", count: 42)))
        XCTAssertTrue(PKCE.isValidVerifier(String(repeating: "a", count: 43)))
        XCTAssertTrue(PKCE.isValidVerifier(String(repeating: "~._-", count: 32)))
        XCTAssertFalse(PKCE.isValidVerifier(String(repeating: "a", count: 129)))
        XCTAssertFalse(PKCE.isValidVerifier(String(repeating: "a", count: 42) + "+"))
        XCTAssertFalse(PKCE.isValidVerifier(String(repeating: "a", count: 42) + "\u{e9}"))
    }

    func testDescriptionHidesTheVerifier() throws {
        let pkce = try PKCE()
        XCTAssertFalse(String(describing: pkce).contains(pkce.verifier))
        XCTAssertTrue(String(describing: pkce).contains(pkce.challenge))
    }
}
