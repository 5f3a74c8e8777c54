import Foundation
import XCTest

@testable import MSAL

final class AuthorityNormalizationTests: XCTestCase {
    func testAADNormalization() throws {
        let table: [(input: String, url: String, environment: String, realm: String, line: UInt)] = [
            (
                "https://login.microsoftonline.com/common", "https://login.microsoftonline.com/common",
                "login.microsoftonline.com", "common", #line
            ),
            (
                "https://LOGIN.MicrosoftOnline.COM/Contoso.COM", "https://login.microsoftonline.com/Contoso.COM",
                "login.microsoftonline.com", "contoso.com", #line
            ),
            (
                "https://login.microsoftonline.com/common/", "https://login.microsoftonline.com/common",
                "login.microsoftonline.com", "common", #line
            ),
            (
                "https://login.microsoftonline.com/common/oauth2/v2.0/authorize?x=1#frag",
                "https://login.microsoftonline.com/common", "login.microsoftonline.com", "common", #line
            ),
            (
                "https://login.microsoftonline.com//common//", "https://login.microsoftonline.com/common",
                "login.microsoftonline.com", "common", #line
            ),
            (
                "https://login.microsoftonline.com:443/common", "https://login.microsoftonline.com/common",
                "login.microsoftonline.com", "common", #line
            ),
            (
                "https://login.microsoftonline.com:8443/common", "https://login.microsoftonline.com:8443/common",
                "login.microsoftonline.com:8443", "common", #line
            ),
            ("https://[::1]:8443/tenant", "https://[::1]:8443/tenant", "[::1]:8443", "tenant", #line),
            ("https://[::1]/tenant", "https://[::1]/tenant", "[::1]", "tenant", #line),
            (
                "https://user:secret@login.microsoftonline.com/common", "https://login.microsoftonline.com/common",
                "login.microsoftonline.com", "common", #line
            ),
            (
                "  https://login.microsoftonline.com/common  ", "https://login.microsoftonline.com/common",
                "login.microsoftonline.com", "common", #line
            ),
            (
                "HTTPS://login.microsoftonline.com/organizations", "https://login.microsoftonline.com/organizations",
                "login.microsoftonline.com", "organizations", #line
            ),
            (
                "https://login.microsoftonline.com/%20Contoso%20", "https://login.microsoftonline.com/%20Contoso%20",
                "login.microsoftonline.com", "contoso", #line
            ),
        ]
        for row in table {
            let authority = try Authority.aad(row.input)
            XCTAssertEqual(authority.urlString, row.url, line: row.line)
            XCTAssertEqual(authority.url.absoluteString, row.url, line: row.line)
            XCTAssertEqual(authority.environment, row.environment, line: row.line)
            XCTAssertEqual(authority.realm, row.realm, line: row.line)
        }
    }

    func testTenantTypes() throws {
        let table: [(tenant: String, type: AADTenantType, tenantless: Bool)] = [
            ("common", .common, true),
            ("COMMON", .common, true),
            ("organizations", .organizations, true),
            ("consumers", .consumers, true),
            ("9188040d-6c67-4c5b-b112-36a304b66dad", .guid, false),
            ("9188040D-6C67-4C5B-B112-36A304B66DAD", .guid, false),
            ("contoso.onmicrosoft.com", .domain, false),
            ("contoso", .domain, false),
            ("9188040d-6c67-4c5b-b112", .domain, false),
        ]
        for row in table {
            let authority = try Authority.aad("https://login.microsoftonline.com/\(row.tenant)")
            XCTAssertEqual(authority.aadTenantType, row.type, row.tenant)
            XCTAssertEqual(authority.aadTenantType?.isTenantless, row.tenantless, row.tenant)
            XCTAssertEqual(authority.realm, row.tenant.lowercased(), row.tenant)
        }
    }

    func testSharedRejections() {
        let table: [(input: String, message: String, line: UInt)] = [
            ("", AuthorityError.emptyAuthority, #line),
            ("   ", AuthorityError.emptyAuthority, #line),
            ("%20", AuthorityError.emptyAuthority, #line),
            ("http://login.microsoftonline.com/common", AuthorityError.httpsRequired, #line),
            ("ftp://login.microsoftonline.com/common", AuthorityError.httpsRequired, #line),
            ("login.microsoftonline.com/common", AuthorityError.httpsRequired, #line),
            ("http://192.168.1.10/common", AuthorityError.httpsRequired, #line),
            ("http://localhost.example.com/common", AuthorityError.httpsRequired, #line),
            ("https:///common", AuthorityError.missingHost, #line),
            ("https://host:abc/common", AuthorityError.notAURL, #line),
            ("https://host:99999/common", AuthorityError.invalidPort(99_999), #line),
            ("https://host:0/common", AuthorityError.invalidPort(0), #line),
        ]
        for row in table {
            for parse in [
                { try Authority.aad(row.input) }, { try Authority.b2c(row.input, validateFormat: false) },
                { try Authority.ciam(row.input, validateFormat: false) }, { try Authority.adfs(row.input) },
                { try Authority.oidc(issuer: row.input) }, { try Authority.detect(row.input) },
            ] {
                assertMSALFailure(try parse(), message: row.message, row.input, line: row.line)
            }
        }
    }

    func testAADRejections() {
        let table: [(input: String, message: String)] = [
            ("https://login.microsoftonline.com", AuthorityError.missingAADTenant),
            ("https://login.microsoftonline.com/", AuthorityError.missingAADTenant),
            ("https://login.microsoftonline.com/%20/", AuthorityError.missingAADTenant),
            ("https://login.contoso.com/adfs", AuthorityError.aadWithADFS),
            ("https://login.contoso.com/ADFS/ls", AuthorityError.aadWithADFS),
            ("https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/B2C_1_signin", AuthorityError.aadWithB2C),
            ("https://login.microsoftonline.com/TFP/tenant", AuthorityError.aadWithB2C),
            ("https://contoso.ciamlogin.com/contoso.onmicrosoft.com", AuthorityError.aadWithCIAM),
            ("https://contoso.CIAMLOGIN.com", AuthorityError.aadWithCIAM),
        ]
        for row in table {
            assertMSALFailure(try Authority.aad(row.input), message: row.message, row.input)
        }
    }

    func testEqualityIsKindAndNormalizedURL() throws {
        let first = try Authority.aad("https://LOGIN.microsoftonline.com/contoso.com/")
        let second = try Authority.aad("https://login.microsoftonline.com:443/contoso.com?x=1")
        XCTAssertEqual(first, second)
        XCTAssertEqual(Set([first, second]).count, 1)
        XCTAssertNotEqual(first, try Authority.aad("https://login.microsoftonline.com/Contoso.com"))
        let oidc = try Authority.oidc(issuer: "https://login.microsoftonline.com/contoso.com")
        XCTAssertEqual(oidc.urlString, first.urlString)
        XCTAssertNotEqual(first, oidc)
    }

    func testTrustedHosts() throws {
        for host in TrustedAuthorityHosts.all {
            XCTAssertTrue(try Authority.aad("https://\(host.uppercased())/common").isTrustedMicrosoftHost, host)
        }
        XCTAssertEqual(TrustedAuthorityHosts.all.count, 11)
        XCTAssertFalse(try Authority.aad("https://login.microsoft.com/common").isTrustedMicrosoftHost)
        XCTAssertFalse(try Authority.aad("https://127.0.0.1:8443/common").isTrustedMicrosoftHost)
    }

    func testKindProperties() throws {
        let aad = try Authority.aad("https://login.microsoftonline.com/common")
        let b2c = try Authority.b2c("https://x.b2clogin.com/tfp/x.onmicrosoft.com/B2C_1_a", validateFormat: true)
        let ciam = try Authority.ciam("https://x.ciamlogin.com", validateFormat: true)
        let adfs = try Authority.adfs("https://fs.contoso.com/adfs")
        let oidc = try Authority.oidc(issuer: "https://accounts.example.com")
        XCTAssertEqual([aad, b2c, ciam, adfs, oidc].map(\.needsInstanceDiscovery), [true, false, false, false, false])
        XCTAssertEqual(
            [aad, b2c, ciam, adfs, oidc].map(\.supportsClientIDAsScope), [false, true, false, false, false])
        XCTAssertEqual([aad, b2c, ciam, adfs, oidc].map(\.supportsClientInfo), [true, true, true, false, false])
        XCTAssertEqual([aad, b2c, ciam, adfs, oidc].map(\.kind.name), ["AAD", "B2C", "CIAM", "ADFS", "OIDC"])
        XCTAssertEqual(aad.description, "https://login.microsoftonline.com/common")
        XCTAssertNil(aad.b2cPolicy)
        XCTAssertEqual(b2c.b2cPolicy, "B2C_1_a")
        XCTAssertNil(b2c.aadTenantType)
    }
}
