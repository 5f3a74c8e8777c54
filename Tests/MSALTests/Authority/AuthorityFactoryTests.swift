import Foundation
import XCTest

@testable import MSAL

final class AuthorityFactoryTests: XCTestCase {
    func testDetectPicksTheKind() throws {
        let table: [(input: String, kind: String, line: UInt)] = [
            ("https://login.microsoftonline.com/common", "AAD", #line),
            ("https://login.microsoftonline.us/contoso.us", "AAD", #line),
            ("https://login.contoso.com/contoso.com", "AAD", #line),
            ("https://127.0.0.1:8443/tenant", "AAD", #line),
            ("https://idp.example.com/realms/demo", "AAD", #line),
            ("https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/B2C_1_signin", "B2C", #line),
            ("https://login.microsoftonline.com/tfp/contoso.onmicrosoft.com/B2C_1_signin", "B2C", #line),
            ("https://contoso.b2clogin.com/contoso.onmicrosoft.com/B2C_1_signin", "B2C", #line),
            ("https://fs.contoso.com/adfs", "ADFS", #line),
            ("https://contoso.ciamlogin.com", "CIAM", #line),
            ("https://contoso.ciamlogin.com/contoso.onmicrosoft.com", "CIAM", #line),
            ("https://accounts.example.com", "OIDC", #line),
            ("https://accounts.example.com/", "OIDC", #line),
            ("http://localhost:5556", "OIDC", #line),
        ]
        for row in table {
            XCTAssertEqual(try Authority.detect(row.input).kind.name, row.kind, row.input, line: row.line)
        }
    }

    func testDetectRejections() {
        assertMSALFailure(
            try Authority.detect("https://login.microsoftonline.com"), message: AuthorityError.missingAADTenant)
        assertMSALFailure(
            try Authority.detect("https://login.microsoftonline.com/tfp/x"), message: AuthorityError.b2cSegments)
        assertMSALFailure(try Authority.detect("http://accounts.example.com"), message: AuthorityError.httpsRequired)
    }

    func testPublicFactoryReturnsTheSubclass() throws {
        XCTAssertTrue(
            try MSALAuthority.authority(with: fixtureURL("https://login.microsoftonline.com/common"))
                is MSALAADAuthority)
        XCTAssertTrue(
            try MSALAuthority.authority(with: fixtureURL("https://x.b2clogin.com/tfp/x.onmicrosoft.com/B2C_1_a"))
                is MSALB2CAuthority)
        XCTAssertTrue(try MSALAuthority.authority(with: fixtureURL("https://fs.contoso.com/adfs")) is MSALADFSAuthority)
        XCTAssertTrue(try MSALAuthority.authority(with: fixtureURL("https://x.ciamlogin.com")) is MSALCIAMAuthority)
        XCTAssertTrue(
            try MSALAuthority.authority(with: fixtureURL("https://accounts.example.com")) is MSALOIDCAuthority)
        let authority = try MSALAuthority.authority(with: fixtureURL("https://LOGIN.microsoftonline.com/common/x"))
        XCTAssertEqual(authority.url.absoluteString, "https://login.microsoftonline.com/common")
        XCTAssertEqual(authority.description, "https://login.microsoftonline.com/common")
        assertMSALFailure(
            try MSALAuthority.authority(with: fixtureURL("http://login.microsoftonline.com/common")),
            message: AuthorityError.httpsRequired)
    }

    func testPublicEqualityMatchesKnownAuthorities() throws {
        let first = try MSALB2CAuthority(url: fixtureURL("https://x.b2clogin.com/tfp/x.onmicrosoft.com/B2C_1_a/"))
        let second = try MSALB2CAuthority(url: fixtureURL("https://X.b2clogin.com/tfp/x.onmicrosoft.com/B2C_1_a"))
        XCTAssertEqual(first, second)
        XCTAssertEqual(first.hashValue, second.hashValue)
        let known: [MSALAuthority] = [first]
        XCTAssertTrue(known.contains(second))
        XCTAssertFalse(
            known.contains(try MSALAADAuthority(url: fixtureURL("https://login.microsoftonline.com/common"))))
        XCTAssertEqual(first.model, second.model)
        XCTAssertEqual(first.policy, "B2C_1_a")
    }
}
