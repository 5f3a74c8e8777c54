import Foundation
import XCTest

@testable import MSAL

final class AuthorityEndpointsTests: XCTestCase {
    func testOpenIDConfigurationAndDefaultEndpoints() throws {
        let table: [(authority: Authority, openID: String, authorize: String?, token: String?)] = [
            (
                try Authority.aad("https://login.microsoftonline.com/common"),
                "https://login.microsoftonline.com/common/v2.0/.well-known/openid-configuration",
                "https://login.microsoftonline.com/common/oauth2/v2.0/authorize",
                "https://login.microsoftonline.com/common/oauth2/v2.0/token"
            ),
            (
                try Authority.b2c("https://x.b2clogin.com/tfp/x.onmicrosoft.com/B2C_1_a", validateFormat: true),
                "https://x.b2clogin.com/tfp/x.onmicrosoft.com/B2C_1_a/v2.0/.well-known/openid-configuration",
                "https://x.b2clogin.com/tfp/x.onmicrosoft.com/B2C_1_a/oauth2/v2.0/authorize",
                "https://x.b2clogin.com/tfp/x.onmicrosoft.com/B2C_1_a/oauth2/v2.0/token"
            ),
            (
                try Authority.ciam("https://x.ciamlogin.com", validateFormat: true),
                "https://x.ciamlogin.com/x.onmicrosoft.com/v2.0/.well-known/openid-configuration",
                "https://x.ciamlogin.com/x.onmicrosoft.com/oauth2/v2.0/authorize",
                "https://x.ciamlogin.com/x.onmicrosoft.com/oauth2/v2.0/token"
            ),
            (
                try Authority.adfs("https://fs.contoso.com/adfs"),
                "https://fs.contoso.com/adfs/.well-known/openid-configuration",
                "https://fs.contoso.com/adfs/oauth2/authorize", "https://fs.contoso.com/adfs/oauth2/token"
            ),
            (
                try Authority.oidc(issuer: "https://idp.example.com/realms/demo/"),
                "https://idp.example.com/realms/demo/.well-known/openid-configuration", nil, nil
            ),
        ]
        for row in table {
            XCTAssertEqual(row.authority.openIDConfigurationURL.absoluteString, row.openID)
            XCTAssertEqual(row.authority.defaultAuthorizationEndpoint?.absoluteString, row.authorize)
            XCTAssertEqual(row.authority.defaultTokenEndpoint?.absoluteString, row.token)
        }
    }

    func testInstanceDiscoveryURL() throws {
        let trusted = try Authority.aad("https://login.microsoftonline.us/contoso.us")
        XCTAssertEqual(
            trusted.instanceDiscoveryURL(isDeveloperKnown: false)?.absoluteString,
            "https://login.microsoftonline.us/common/discovery/instance?api-version=1.1&authorization_endpoint="
                + "https%3A%2F%2Flogin.microsoftonline.us%2Fcontoso.us%2Foauth2%2Fv2.0%2Fauthorize")
        let custom = try Authority.aad("https://127.0.0.1:8443/contoso")
        XCTAssertEqual(
            custom.instanceDiscoveryURL(isDeveloperKnown: false)?.absoluteString,
            "https://login.microsoftonline.com/common/discovery/instance?api-version=1.1&authorization_endpoint="
                + "https%3A%2F%2F127.0.0.1%3A8443%2Fcontoso%2Foauth2%2Fv2.0%2Fauthorize")
        XCTAssertEqual(
            custom.instanceDiscoveryURL(isDeveloperKnown: true)?.absoluteString,
            "https://127.0.0.1:8443/common/discovery/instance?api-version=1.1&authorization_endpoint="
                + "https%3A%2F%2F127.0.0.1%3A8443%2Fcontoso%2Foauth2%2Fv2.0%2Fauthorize")
        XCTAssertNil(try Authority.adfs("https://fs.contoso.com/adfs").instanceDiscoveryURL(isDeveloperKnown: true))
        XCTAssertNil(try Authority.oidc(issuer: "https://a.example.com").instanceDiscoveryURL(isDeveloperKnown: true))
    }

    func testTenantOfEndpoint() {
        XCTAssertEqual(
            Authority.tenant(ofEndpoint: fixtureURL("https://login.microsoftonline.com/common/v2.0/x")), "common")
        XCTAssertEqual(Authority.tenant(ofEndpoint: fixtureURL("https://h//a%20b/x")), "a b")
        XCTAssertNil(Authority.tenant(ofEndpoint: fixtureURL("https://oauth2.example.com")))
    }

    func testWithTenant() throws {
        let common = try Authority.aad("https://login.microsoftonline.com:8443/common")
        let home = try common.withTenant("9188040d-6c67-4c5b-b112-36a304b66dad")
        XCTAssertEqual(home.urlString, "https://login.microsoftonline.com:8443/9188040d-6c67-4c5b-b112-36a304b66dad")
        XCTAssertEqual(home.aadTenantType, .guid)
        let b2c = try Authority.b2c("https://x.b2clogin.com/tfp/x.onmicrosoft.com/B2C_1_a", validateFormat: true)
        XCTAssertEqual(
            try b2c.withTenant("y.onmicrosoft.com").urlString, "https://x.b2clogin.com/tfp/y.onmicrosoft.com/B2C_1_a")
        let b2cLogin = try Authority.b2c("https://x.b2clogin.com/x.onmicrosoft.com/B2C_1_a", validateFormat: false)
        XCTAssertEqual(try b2cLogin.withTenant("y").urlString, "https://x.b2clogin.com/y/B2C_1_a")
        let ciam = try Authority.ciam("https://x.ciamlogin.com", validateFormat: false)
        XCTAssertEqual(try ciam.withTenant("tid").urlString, "https://x.ciamlogin.com/tid")
        for authority in [
            try Authority.adfs("https://fs.contoso.com/adfs"), try Authority.oidc(issuer: "https://a.b.c"),
        ] {
            assertMSALFailure(
                try authority.withTenant("x"), message: AuthorityError.tenantNotSupported(authority.kind.name))
        }
        for tenant in ["", " ", "a/b", "a?b", "a#b"] {
            assertMSALFailure(try common.withTenant(tenant), message: AuthorityError.invalidTenant, tenant)
        }
    }

    func testWithEnvironment() throws {
        let aad = try Authority.aad("https://login.windows.net/contoso.com")
        let moved = try aad.withEnvironment("login.microsoftonline.com")
        XCTAssertEqual(moved.urlString, "https://login.microsoftonline.com/contoso.com")
        XCTAssertEqual(moved.kind, aad.kind)
        XCTAssertEqual(try aad.withEnvironment("LOCALHOST:8443").environment, "localhost:8443")
        let b2c = try Authority.b2c("https://x.b2clogin.com/tfp/t/p", validateFormat: true)
        XCTAssertEqual(try b2c.withEnvironment("y.b2clogin.com").urlString, "https://y.b2clogin.com/tfp/t/p")
        XCTAssertEqual(
            try Authority.oidc(issuer: "https://a.example.com/x").withEnvironment("b.example.com").urlString,
            "https://b.example.com/x")
        assertMSALFailure(try aad.withEnvironment(""), message: AuthorityError.missingHost)
    }

    func testLoopbackHTTPNeedsKnownAuthorities() throws {
        let loopback = try Authority.aad("http://127.0.0.1:8080/tenant")
        let same = try Authority.aad("http://127.0.0.1:8080/tenant/")
        assertMSALFailure(
            try loopback.validateScheme(knownAuthorities: []),
            message: AuthorityError.loopbackHTTPNotKnown("http://127.0.0.1:8080/tenant"))
        assertMSALFailure(
            try loopback.validateScheme(knownAuthorities: [try Authority.oidc(issuer: "http://127.0.0.1:8080/tenant")]),
            message: AuthorityError.loopbackHTTPNotKnown("http://127.0.0.1:8080/tenant"))
        XCTAssertNoThrow(try loopback.validateScheme(knownAuthorities: [same]))
        XCTAssertTrue(loopback.isListed(in: [same]))
        let https = try Authority.aad("https://127.0.0.1:8443/tenant")
        XCTAssertNoThrow(try https.validateScheme(knownAuthorities: []))
        XCTAssertFalse(https.isListed(in: [loopback]))
    }
}
