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
            "authorization_endpoint": "http://127.0.0.1:5556/auth", "token_endpoint": "http://localhost:5556/token",
            "issuer": "http://127.0.0.1:5556", "jwks_uri": NSNull(),
        ])
        let loopback = try OpenIDConfigurationParser.parse(
            nulls, configurationURL: fixtureURL("http://127.0.0.1:5556/.well-known/openid-configuration"))
        XCTAssertEqual(loopback.tokenEndpoint.absoluteString, "http://localhost:5556/token")
        XCTAssertNil(loopback.jwksURI)
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
