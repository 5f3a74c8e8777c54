import Foundation
import XCTest

@testable import MSAL

/// B2C, CIAM, AD FS and OIDC parsing.
final class AuthorityKindsTests: XCTestCase {
    func testB2CTFPForm() throws {
        let table: [(input: String, url: String, realm: String, policy: String)] = [
            (
                "https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/B2C_1_signin",
                "https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/B2C_1_signin", "contoso.onmicrosoft.com",
                "B2C_1_signin"
            ),
            (
                "https://Contoso.B2CLogin.com/TFP/contoso.onmicrosoft.com/B2C_1_signin/v2.0/?p=1#x",
                "https://contoso.b2clogin.com/TFP/contoso.onmicrosoft.com/B2C_1_signin", "contoso.onmicrosoft.com",
                "B2C_1_signin"
            ),
            (
                "https://login.microsoftonline.com:443/tfp/tenant/policy/",
                "https://login.microsoftonline.com/tfp/tenant/policy",
                "tenant", "policy"
            ),
            (
                "https://127.0.0.1:8443/tfp/tenant/B2C_1A_custom", "https://127.0.0.1:8443/tfp/tenant/B2C_1A_custom",
                "tenant", "B2C_1A_custom"
            ),
        ]
        for validateFormat in [true, false] {
            for row in table {
                let authority = try Authority.b2c(row.input, validateFormat: validateFormat)
                XCTAssertEqual(authority.urlString, row.url, row.input)
                XCTAssertEqual(authority.realm, row.realm, row.input)
                XCTAssertEqual(authority.b2cPolicy, row.policy, row.input)
                XCTAssertEqual(authority.kind, .b2c(tenant: row.realm, policy: row.policy, isTFP: true))
            }
        }
    }

    func testB2CLoginFormNeedsValidateFormatOff() throws {
        let input = "https://contoso.b2clogin.com/contoso.onmicrosoft.com/B2C_1_policy/?p=x#f"
        let authority = try Authority.b2c(input, validateFormat: false)
        XCTAssertEqual(authority.urlString, "https://contoso.b2clogin.com/contoso.onmicrosoft.com/B2C_1_policy")
        XCTAssertEqual(authority.realm, "/contoso.onmicrosoft.com/B2C_1_policy")
        XCTAssertEqual(authority.kind, .b2c(tenant: "contoso.onmicrosoft.com", policy: "B2C_1_policy", isTFP: false))
        XCTAssertEqual(authority.environment, "contoso.b2clogin.com")
        assertMSALFailure(try Authority.b2c(input, validateFormat: true), message: AuthorityError.notB2C)

        let bare = try Authority.b2c("https://contoso.b2clogin.com/", validateFormat: false)
        XCTAssertEqual(bare.urlString, "https://contoso.b2clogin.com")
        XCTAssertEqual(bare.realm, "")
        XCTAssertNil(bare.b2cPolicy)
    }

    func testB2CFewerThanThreeSegments() throws {
        for input in [
            "https://contoso.b2clogin.com/tfp", "https://contoso.b2clogin.com/tfp/tenant",
            "https://contoso.b2clogin.com/tfp/tenant/",
        ] {
            assertMSALFailure(
                try Authority.b2c(input, validateFormat: true), message: AuthorityError.b2cSegments, input)
            assertMSALFailure(try Authority.detect(input), message: AuthorityError.b2cSegments, input)
            XCTAssertNoThrow(try Authority.b2c(input, validateFormat: false), input)
        }
        XCTAssertEqual(
            AuthorityError.b2cSegments,
            "B2C authority should have at least 3 segments in the path (i.e. https://<host>/tfp/<tenant>/<policy>/...)")
    }

    func testCIAM() throws {
        let table: [(input: String, url: String, realm: String)] = [
            (
                "https://contoso.ciamlogin.com", "https://contoso.ciamlogin.com/contoso.onmicrosoft.com",
                "contoso.onmicrosoft.com"
            ),
            (
                "https://contoso.ciamlogin.com/", "https://contoso.ciamlogin.com/contoso.onmicrosoft.com",
                "contoso.onmicrosoft.com"
            ),
            (
                "https://Contoso.CiamLogin.com/", "https://contoso.ciamlogin.com/contoso.onmicrosoft.com",
                "contoso.onmicrosoft.com"
            ),
            (
                "https://contoso.ciamlogin.com/aaaabbbb-0000-cccc-1111-dddd2222eeee/v2.0?x=1",
                "https://contoso.ciamlogin.com/aaaabbbb-0000-cccc-1111-dddd2222eeee",
                "aaaabbbb-0000-cccc-1111-dddd2222eeee"
            ),
            (
                "https://contoso.ciamlogin.com:8443/Contoso.onmicrosoft.com",
                "https://contoso.ciamlogin.com:8443/Contoso.onmicrosoft.com", "Contoso.onmicrosoft.com"
            ),
        ]
        for validateFormat in [true, false] {
            for row in table {
                let authority = try Authority.ciam(row.input, validateFormat: validateFormat)
                XCTAssertEqual(authority.urlString, row.url, row.input)
                XCTAssertEqual(authority.realm, row.realm, row.input)
                XCTAssertEqual(authority.kind, .ciam)
            }
        }
        let custom = try Authority.ciam("https://login.contoso.com/contoso.onmicrosoft.com/", validateFormat: false)
        XCTAssertEqual(custom.urlString, "https://login.contoso.com/contoso.onmicrosoft.com")
        XCTAssertEqual(custom.realm, "contoso.onmicrosoft.com")
    }

    func testCIAMRejections() {
        let table: [(input: String, validate: Bool, message: String)] = [
            ("https://ciamlogin.com/tenant", true, AuthorityError.ciamSegments),
            ("https://localhost/tenant", true, AuthorityError.ciamSegments),
            ("https://login.contoso.com/tenant", true, AuthorityError.notCIAM),
            ("https://login.microsoftonline.com/common", true, AuthorityError.notCIAM),
            ("https://login.contoso.com", false, AuthorityError.ciamCustomDomainWithoutTenant),
            ("https://login.contoso.com/", false, AuthorityError.ciamCustomDomainWithoutTenant),
        ]
        for row in table {
            assertMSALFailure(
                try Authority.ciam(row.input, validateFormat: row.validate), message: row.message, row.input)
        }
    }

    func testADFS() throws {
        let table: [(input: String, url: String)] = [
            ("https://fs.contoso.com/adfs", "https://fs.contoso.com/adfs"),
            ("https://FS.contoso.com/adfs/", "https://fs.contoso.com/adfs"),
            ("https://fs.contoso.com/ADFS/oauth2/authorize?x=1", "https://fs.contoso.com/ADFS"),
            ("https://fs.contoso.com:444/adfs", "https://fs.contoso.com:444/adfs"),
        ]
        for row in table {
            let authority = try Authority.adfs(row.input)
            XCTAssertEqual(authority.urlString, row.url, row.input)
            XCTAssertEqual(authority.realm, "adfs")
            XCTAssertEqual(authority.kind, .adfs)
        }
        for input in ["https://fs.contoso.com", "https://fs.contoso.com/common", "https://fs.contoso.com/x/adfs"] {
            assertMSALFailure(try Authority.adfs(input), message: AuthorityError.notADFS, input)
        }
    }

    func testOIDC() throws {
        let table: [(input: String, url: String, realm: String)] = [
            ("https://accounts.example.com", "https://accounts.example.com", ""),
            ("https://accounts.example.com/", "https://accounts.example.com", ""),
            ("https://IdP.Example.com/realms/Demo/", "https://idp.example.com/realms/Demo", "realms"),
            ("https://idp.example.com:8443/realms/demo?x=1#y", "https://idp.example.com:8443/realms/demo", "realms"),
            ("https://idp.example.com:443//a//b", "https://idp.example.com/a/b", "a"),
            ("http://127.0.0.1:5556/dex", "http://127.0.0.1:5556/dex", "dex"),
            ("http://localhost:80/dex", "http://localhost/dex", "dex"),
        ]
        for row in table {
            let authority = try Authority.oidc(issuer: row.input)
            XCTAssertEqual(authority.urlString, row.url, row.input)
            XCTAssertEqual(authority.realm, row.realm, row.input)
            XCTAssertEqual(authority.kind, .oidc)
        }
    }

    func testHTTPOnlyOnLoopback() throws {
        for input in ["http://127.0.0.1:8443/common", "http://[::1]:8443/common", "http://LOCALHOST/common"] {
            let authority = try Authority.aad(input)
            XCTAssertTrue(authority.isLoopbackHTTP, input)
            XCTAssertTrue(authority.urlString.hasPrefix("http://"), input)
        }
        XCTAssertFalse(try Authority.aad("https://127.0.0.1:8443/common").isLoopbackHTTP)
        assertMSALFailure(try Authority.aad("http://10.0.0.1/common"), message: AuthorityError.httpsRequired)
    }
}
