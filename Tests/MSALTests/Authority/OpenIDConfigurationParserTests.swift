import Foundation
import XCTest

@testable import MSAL

final class OpenIDConfigurationParserTests: XCTestCase {
    private let commonURL = fixtureURL("https://login.microsoftonline.com/common/v2.0/.well-known/openid-configuration")

    private func document(_ fields: [String: Any]) -> Data {
        var object: [String: Any] = [
            "authorization_endpoint": "https://login.microsoftonline.com/common/oauth2/v2.0/authorize",
            "token_endpoint": "https://login.microsoftonline.com/common/oauth2/v2.0/token",
            "issuer": "https://login.microsoftonline.com/{tenantid}/v2.0",
        ]
        for (key, value) in fields {
            object[key] = value is NSNull ? nil : value
        }
        return try! JSONSerialization.data(withJSONObject: object)
    }

    func testAADDocumentWithTenantIdSubstitution() throws {
        let configuration = try OpenIDConfigurationParser.parse(
            document([
                "end_session_endpoint": "https://login.microsoftonline.com/common/oauth2/v2.0/logout",
                "device_authorization_endpoint": "https://login.microsoftonline.com/common/oauth2/v2.0/devicecode",
                "jwks_uri": "https://login.microsoftonline.com/common/discovery/v2.0/keys",
                "scopes_supported": ["openid"], "http_logout_supported": true,
            ]), configurationURL: commonURL)
        XCTAssertEqual(configuration.issuer, "https://login.microsoftonline.com/common/v2.0")
        XCTAssertEqual(
            configuration.authorizationEndpoint.absoluteString,
            "https://login.microsoftonline.com/common/oauth2/v2.0/authorize")
        XCTAssertEqual(
            configuration.tokenEndpoint.absoluteString, "https://login.microsoftonline.com/common/oauth2/v2.0/token")
        XCTAssertEqual(
            configuration.endSessionEndpoint?.absoluteString,
            "https://login.microsoftonline.com/common/oauth2/v2.0/logout")
        XCTAssertEqual(
            configuration.deviceAuthorizationEndpoint?.absoluteString,
            "https://login.microsoftonline.com/common/oauth2/v2.0/devicecode")
        XCTAssertEqual(
            configuration.jwksURI?.absoluteString, "https://login.microsoftonline.com/common/discovery/v2.0/keys")

        let tenanted = try OpenIDConfigurationParser.parse(
            document([:]),
            configurationURL: fixtureURL(
                "https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0/.well-known/openid-configuration"
            ))
        XCTAssertEqual(tenanted.issuer, "https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0")
    }

    func testOptionalFieldsAndPlainIssuers() throws {
        let configuration = try OpenIDConfigurationParser.parse(
            document(["issuer": "https://accounts.example.com", "end_session_endpoint": NSNull()]),
            configurationURL: fixtureURL("https://accounts.example.com/.well-known/openid-configuration"))
        XCTAssertEqual(configuration.issuer, "https://accounts.example.com")
        XCTAssertNil(configuration.endSessionEndpoint)
        XCTAssertNil(configuration.deviceAuthorizationEndpoint)
        XCTAssertNil(configuration.jwksURI)
        let nulls = try JSONSerialization.data(withJSONObject: [
            "authorization_endpoint": "http://127.0.0.1:5556/auth", "token_endpoint": "http://127.0.0.1:5556/token",
            "issuer": "http://127.0.0.1:5556", "jwks_uri": NSNull(),
        ])
        let known = DiscoveryURLPolicy(plainHTTPOrigin: "http://127.0.0.1:5556", requiredHost: nil)
        let loopback = try OpenIDConfigurationParser.parse(
            nulls, configurationURL: fixtureURL("http://127.0.0.1:5556/.well-known/openid-configuration"),
            policy: known)
        XCTAssertEqual(loopback.tokenEndpoint.absoluteString, "http://127.0.0.1:5556/token")
        XCTAssertNil(loopback.jwksURI)
    }

    /// A refresh token was once sent in clear text: a document whose token endpoint was a plain
    /// loopback URL was accepted. Plain HTTP is accepted only on the known authority's own origin.
    func testPlainHTTPEndpointsAreRefusedOutsideTheKnownOrigin() {
        let configurationURL = fixtureURL(
            "https://login.microsoftonline.com/common/v2.0/.well-known/openid-configuration")
        let known = DiscoveryURLPolicy(plainHTTPOrigin: "http://127.0.0.1:5556", requiredHost: nil)
        let rows: [(field: String, value: String, policy: DiscoveryURLPolicy, line: UInt)] = [
            ("token_endpoint", "http://127.0.0.1:5557/token", .httpsOnly, #line),
            ("token_endpoint", "http://127.0.0.1:5557/token", known, #line),
            ("token_endpoint", "http://localhost:5556/token", known, #line),
            ("authorization_endpoint", "http://[::1]:5556/auth", known, #line),
            ("device_authorization_endpoint", "http://127.0.0.1:9/devicecode", .httpsOnly, #line),
            ("end_session_endpoint", "http://127.0.0.1/logout", .httpsOnly, #line),
            ("jwks_uri", "http://127.0.0.1:5556/keys", .httpsOnly, #line),
        ]
        for row in rows {
            assertMSALFailure(
                try OpenIDConfigurationParser.parse(
                    document([row.field: row.value]), configurationURL: configurationURL, policy: row.policy),
                internalCode: -42_600, "\(row.field) \(row.value)", line: row.line)
            do {
                _ = try OpenIDConfigurationParser.parse(
                    document([row.field: row.value]), configurationURL: configurationURL, policy: row.policy)
            } catch {
                let description = (error as NSError).localizedDescription
                XCTAssertTrue(description.contains(configurationURL.absoluteString), description, line: row.line)
                XCTAssertTrue(description.contains("its \(row.field) (\(row.value))"), description, line: row.line)
            }
        }
    }

    /// Entra-shaped authorities keep every endpoint on the document's host; an OIDC issuer may not.
    func testRequiredHost() throws {
        let configurationURL = fixtureURL(
            "https://contoso.b2clogin.com/contoso.onmicrosoft.com/b2c_1_x/v2.0/.well-known/openid-configuration")
        let sameHost = DiscoveryURLPolicy(plainHTTPOrigin: nil, requiredHost: "contoso.b2clogin.com")
        let fields: [String: Any] = [
            "authorization_endpoint":
                "https://contoso.b2clogin.com/contoso.onmicrosoft.com/b2c_1_x/oauth2/v2.0/authorize",
            "token_endpoint": "https://CONTOSO.b2clogin.com:443/contoso.onmicrosoft.com/b2c_1_x/oauth2/v2.0/token",
            "issuer": "https://contoso.b2clogin.com/tid/v2.0/",
        ]
        XCTAssertNoThrow(
            try OpenIDConfigurationParser.parse(document(fields), configurationURL: configurationURL, policy: sameHost))
        for (field, value) in [
            ("token_endpoint", "https://evil.example/token"), ("token_endpoint", "https://contoso.b2clogin.com:8443/t"),
            ("jwks_uri", "https://keys.example/keys"), ("device_authorization_endpoint", "https://b2clogin.com/dc"),
        ] {
            var changed = fields
            changed[field] = value
            assertMSALFailure(
                try OpenIDConfigurationParser.parse(
                    document(changed), configurationURL: configurationURL, policy: sameHost),
                internalCode: -42_600, value)
        }
        var google = fields
        google["token_endpoint"] = "https://oauth2.example.com/token"
        XCTAssertEqual(
            try OpenIDConfigurationParser.parse(
                document(google), configurationURL: configurationURL, policy: .httpsOnly
            )
            .tokenEndpoint.host, "oauth2.example.com")
    }

    func testMissingOrInvalidFields() {
        let table: [(fields: [String: Any], line: UInt)] = [
            (["authorization_endpoint": NSNull()], #line), (["token_endpoint": NSNull()], #line),
            (["issuer": NSNull()], #line), (["issuer": ""], #line), (["issuer": 42], #line),
            (["authorization_endpoint": 42], #line), (["token_endpoint": ["https://a.com"]], #line),
            (["token_endpoint": "http://login.microsoftonline.com/common/oauth2/v2.0/token"], #line),
            (["authorization_endpoint": "ftp://a.com/x"], #line), (["authorization_endpoint": "/relative"], #line),
            (["authorization_endpoint": "not a url"], #line),
            (["end_session_endpoint": "http://example.com/logout"], #line),
            (["device_authorization_endpoint": 1], #line), (["jwks_uri": "javascript:alert(1)"], #line),
        ]
        for row in table {
            assertMSALFailure(
                try OpenIDConfigurationParser.parse(document(row.fields), configurationURL: commonURL),
                internalCode: -42_600, "\(row.fields)", line: row.line)
        }
        for body in ["", "nope", "[]", "[{\"issuer\": \"x\"}]", "\"x\"", "null", "{}"] {
            assertMSALFailure(
                try OpenIDConfigurationParser.parse(Data(body.utf8), configurationURL: commonURL),
                internalCode: -42_600, body)
        }
    }

    func testErrorBody() {
        let body = #"{"error": "invalid_tenant", "error_description": "AADSTS90002: Tenant 'x' not found."}"#
        assertMSALFailure(
            try OpenIDConfigurationParser.parse(Data(body.utf8), configurationURL: commonURL), internalCode: -42_010,
            message: "Reading the OpenID configuration of the authority failed (invalid_tenant: AADSTS90002: Tenant "
                + "'x' not found.). Check the authority URL and its tenant.")
        do {
            _ = try OpenIDConfigurationParser.parse(Data(body.utf8), configurationURL: commonURL)
        } catch {
            XCTAssertEqual((error as NSError).userInfo[MSALOAuthErrorKey] as? String, "invalid_tenant")
        }
    }
}
