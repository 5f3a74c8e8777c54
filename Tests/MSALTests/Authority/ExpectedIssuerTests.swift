import Foundation
import XCTest

@testable import MSAL

/// The issuer an interactive sign-in's id token must name, per authority kind.
final class ExpectedIssuerTests: XCTestCase {
    private let contoso = "8d2f5e1a-3b4c-4d6e-9f70-a1b2c3d4e5f6"

    private func resolved(_ authority: String, issuer: String, aliases: [String] = []) throws -> ResolvedAuthority {
        let parsed = try Authority.detect(authority)
        let configuration = OpenIDConfiguration(
            authorizationEndpoint: fixtureURL("https://idp.example/authorize"),
            tokenEndpoint: fixtureURL("https://idp.example/token"), issuer: issuer, endSessionEndpoint: nil,
            deviceAuthorizationEndpoint: nil, jwksURI: nil)
        return ResolvedAuthority(
            authority: parsed, networkAuthority: parsed, cacheEnvironment: parsed.parts.host,
            cacheLookupEnvironments: [parsed.parts.host], aliases: aliases, configuration: configuration)
    }

    /// A `tid` of any text from a server never traps building the expected issuer (URLComponents
    /// traps on a path with characters a path cannot hold); it simply does not match.
    func testATenantIdThatIsNoPathSegmentDoesNotTrap() throws {
        let common = try resolved(
            "https://login.microsoftonline.com/common", issuer: "https://login.microsoftonline.com/common/v2.0",
            aliases: ["login.microsoftonline.com"])
        for tid in ["a b", "x/../y", "%zz", "\u{1B}[2J", "é", "a?b#c", "[::1]"] {
            let expected = common.expectedIssuer(
                tokenIssuer: "https://login.microsoftonline.com/\(tid)/v2.0", tenantId: tid)
            XCTAssertEqual(expected, "https://login.microsoftonline.com/common/v2.0", tid)
        }
    }

    func testMultiTenantAADAuthoritiesExpectTheTokensTenant() throws {
        let aliases = ["login.microsoftonline.com", "login.windows.net", "login.microsoft.com"]
        for tenant in ["common", "organizations", "consumers"] {
            let common = try resolved(
                "https://login.microsoftonline.com/\(tenant)",
                issuer: "https://login.microsoftonline.com/\(tenant)/v2.0", aliases: aliases)
            let token = "https://login.microsoftonline.com/\(contoso)/v2.0"
            XCTAssertEqual(common.expectedIssuer(tokenIssuer: token, tenantId: contoso), token, tenant)
            // The token names another tenant than its tid: the expectation follows tid, so they differ.
            XCTAssertEqual(
                common.expectedIssuer(tokenIssuer: "https://login.microsoftonline.com/evil/v2.0", tenantId: contoso),
                token, tenant)
        }
    }

    func testAnotherAliasOfTheCloudIsAcceptedButNotAnotherHost() throws {
        let aliases = ["login.microsoftonline.com", "login.windows.net"]
        let tenant = try resolved(
            "https://login.microsoftonline.com/\(contoso)", issuer: "https://login.microsoftonline.com/\(contoso)/v2.0",
            aliases: aliases)
        XCTAssertEqual(
            tenant.expectedIssuer(tokenIssuer: "https://login.windows.net/\(contoso)/v2.0", tenantId: contoso),
            "https://login.windows.net/\(contoso)/v2.0")
        XCTAssertEqual(
            tenant.expectedIssuer(tokenIssuer: "https://evil.example/\(contoso)/v2.0", tenantId: contoso),
            "https://login.microsoftonline.com/\(contoso)/v2.0")
        // A single-tenant authority never takes the tenant from the token.
        XCTAssertEqual(
            tenant.expectedIssuer(tokenIssuer: "https://login.microsoftonline.com/other/v2.0", tenantId: "other"),
            "https://login.microsoftonline.com/\(contoso)/v2.0")
    }

    func testOtherKindsExpectTheConfiguredIssuerExactly() throws {
        let b2c = try resolved(
            "https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/B2C_1_signin",
            issuer: "https://contoso.b2clogin.com/\(contoso)/v2.0/")
        XCTAssertEqual(
            b2c.expectedIssuer(tokenIssuer: "https://other.b2clogin.com/\(contoso)/v2.0/", tenantId: contoso),
            "https://contoso.b2clogin.com/\(contoso)/v2.0/")
        let adfs = try resolved("https://fs.contoso.com/adfs", issuer: "https://fs.contoso.com/adfs")
        XCTAssertEqual(adfs.expectedIssuer(tokenIssuer: nil, tenantId: nil), "https://fs.contoso.com/adfs")
    }

    func testValidationComparesCaseAndTrailingSlashLeniently() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func claims(_ iss: String?) throws -> IDTokenClaims {
            var payload: [String: Any] = ["aud": "client", "exp": 1_800_000_100]
            payload["iss"] = iss
            let body = try JSONSerialization.data(withJSONObject: payload)
            let encoded = body.base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            return try IDTokenClaims(raw: "eyJhbGciOiJSUzI1NiJ9.\(encoded).c2ln")
        }
        try claims("https://IDP.example/t/v2.0/").validate(
            clientId: "client", issuer: "https://idp.example/t/v2.0", nonce: nil, now: now)
        XCTAssertThrowsError(
            try claims(nil).validate(clientId: "client", issuer: "https://idp.example/t/v2.0", nonce: nil, now: now)
        ) { error in
            XCTAssertTrue(
                ((error as NSError).userInfo[MSALErrorDescriptionKey] as? String)?.contains("no issuer") == true)
        }
    }
}
