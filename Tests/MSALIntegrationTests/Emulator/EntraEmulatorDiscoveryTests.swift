import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// Instance discovery, openid-configuration for every authority kind, and the JWKS.
final class EntraEmulatorDiscoveryTests: XCTestCase {
    private var emulator: EntraEmulator!
    private var harness: EmulatorHarness!

    override func setUpWithError() throws {
        emulator = try EmulatorHarness.makeEmulator()
        harness = try EmulatorHarness(emulator)
    }

    override func tearDown() {
        emulator.stop()
        harness = nil
        emulator = nil
    }

    private func discover(_ authorizationEndpoint: String, host: String = "login.microsoftonline.com")
        async throws -> HTTPResponse
    {
        try await harness.get(
            "https://\(host)/common/discovery/instance",
            query: [("api-version", "1.1"), ("authorization_endpoint", authorizationEndpoint)])
    }

    func testInstanceDiscoveryListsTheCloudsAndTheirAliases() async throws {
        let response = try await discover(
            "https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/authorize")
        XCTAssertEqual(response.statusCode, 200)
        let body = try EmulatorHarness.json(response)
        XCTAssertEqual(
            body["tenant_discovery_endpoint"] as? String,
            "https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0/.well-known/openid-configuration")
        XCTAssertEqual(body["api-version"] as? String, "1.1")
        let metadata = try XCTUnwrap(body["metadata"] as? [[String: Any]])
        let worldwide = try XCTUnwrap(metadata.first)
        XCTAssertEqual(worldwide["preferred_network"] as? String, "login.microsoftonline.com")
        XCTAssertEqual(worldwide["preferred_cache"] as? String, "login.windows.net")
        XCTAssertEqual(
            worldwide["aliases"] as? [String],
            ["login.microsoftonline.com", "login.windows.net", "login.microsoft.com", "sts.windows.net"])
        XCTAssertTrue(metadata.contains { $0["preferred_network"] as? String == "login.microsoftonline.us" })
        XCTAssertTrue(metadata.contains { $0["preferred_network"] as? String == "login.partner.microsoftonline.cn" })
    }

    func testInstanceDiscoveryAcceptsAliasesNationalCloudsAndTheLoopbackHost() async throws {
        for endpoint in [
            "https://login.windows.net/common/oauth2/v2.0/authorize",
            "https://login.chinacloudapi.cn/common/oauth2/v2.0/authorize",
            "\(harness.local)/common/oauth2/v2.0/authorize",
        ] {
            let response = try await discover(endpoint, host: "login.microsoft.com")
            XCTAssertEqual(response.statusCode, 200, endpoint)
        }
        XCTAssertEqual(emulator.requestCount(.instanceDiscovery), 3)
        XCTAssertEqual(Set(emulator.recentRequests.map(\.host)), ["login.microsoft.com"])
    }

    func testInstanceDiscoveryRejectsAnUnknownInstance() async throws {
        let response = try await discover("https://login.example.com/common/oauth2/v2.0/authorize")
        let body = try EmulatorHarness.assertEntraError(response, error: "invalid_instance", code: 50_049)
        XCTAssertEqual(body["error_uri"] as? String, "https://login.microsoftonline.com/error?code=50049")
    }

    func testOpenIDConfigurationForCommonOrganizationsAndConsumers() async throws {
        for tenant in ["common", "organizations"] {
            let response = try await harness.get(
                "https://login.microsoftonline.com/\(tenant)/v2.0/.well-known/openid-configuration")
            XCTAssertEqual(response.statusCode, 200)
            let document = try EmulatorHarness.json(response)
            XCTAssertEqual(document["issuer"] as? String, "https://login.microsoftonline.com/{tenantid}/v2.0")
            XCTAssertEqual(
                document["authorization_endpoint"] as? String,
                "https://login.microsoftonline.com/\(tenant)/oauth2/v2.0/authorize")
            XCTAssertEqual(
                document["token_endpoint"] as? String, "https://login.microsoftonline.com/\(tenant)/oauth2/v2.0/token")
            XCTAssertEqual(
                document["device_authorization_endpoint"] as? String,
                "https://login.microsoftonline.com/\(tenant)/oauth2/v2.0/devicecode")
            XCTAssertEqual(
                document["end_session_endpoint"] as? String,
                "https://login.microsoftonline.com/\(tenant)/oauth2/v2.0/logout")
            XCTAssertEqual(
                document["jwks_uri"] as? String, "https://login.microsoftonline.com/\(tenant)/discovery/v2.0/keys")
            XCTAssertEqual(document["cloud_instance_name"] as? String, "microsoftonline.com")
        }
        let consumers = try EmulatorHarness.json(
            try await harness.get("https://login.microsoftonline.com/consumers/v2.0/.well-known/openid-configuration"))
        XCTAssertEqual(
            consumers["issuer"] as? String,
            "https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0")
    }

    func testOpenIDConfigurationForATenantByDomainUsesItsId() async throws {
        let id = EmulatorTenant.contoso.id
        for segment in ["contoso.onmicrosoft.com", "CONTOSO.COM", id] {
            let response = try await harness.get("\(harness.local)/\(segment)/v2.0/.well-known/openid-configuration")
            XCTAssertEqual(response.statusCode, 200, segment)
            let document = try EmulatorHarness.json(response)
            XCTAssertEqual(document["issuer"] as? String, "https://127.0.0.1:\(emulator.port)/\(id)/v2.0")
            XCTAssertEqual(document["token_endpoint"] as? String, "\(harness.local)/\(id)/oauth2/v2.0/token")
        }
    }

    func testUnknownTenantIsInvalidTenant() async throws {
        let response = try await harness.get(
            "https://login.microsoftonline.com/nowhere.onmicrosoft.com/v2.0/.well-known/openid-configuration")
        try EmulatorHarness.assertEntraError(response, error: "invalid_tenant", code: 90_002)
    }

    func testB2CConfigurationInTfpAndB2CLoginForms() async throws {
        let tenant = EmulatorTenant.contosoB2C
        let tfp = emulator.authority(.b2c(tenant: "contosob2c.onmicrosoft.com", policy: "B2C_1_signin"))
        var document = try EmulatorHarness.json(
            try await harness.get("\(tfp.absoluteString)/v2.0/.well-known/openid-configuration"))
        XCTAssertEqual(document["issuer"] as? String, "\(harness.local)/\(tenant.id)/v2.0/")
        XCTAssertEqual(
            document["authorization_endpoint"] as? String,
            "\(harness.local)/tfp/contosob2c.onmicrosoft.com/B2C_1_signin/oauth2/v2.0/authorize")

        let b2cLogin = emulator.authority(.b2cLogin(tenant: "contosob2c.onmicrosoft.com", policy: "B2C_1_signin"))
        XCTAssertEqual(
            b2cLogin.absoluteString, "https://contosob2c.b2clogin.com/contosob2c.onmicrosoft.com/B2C_1_signin")
        document = try EmulatorHarness.json(
            try await harness.get("\(b2cLogin.absoluteString)/v2.0/.well-known/openid-configuration"))
        XCTAssertEqual(document["issuer"] as? String, "https://contosob2c.b2clogin.com/\(tenant.id)/v2.0/")
        XCTAssertEqual(
            document["token_endpoint"] as? String,
            "https://contosob2c.b2clogin.com/contosob2c.onmicrosoft.com/B2C_1_signin/oauth2/v2.0/token")
    }

    func testCIAMADFSAndOIDCConfigurations() async throws {
        let ciam = emulator.authority(.ciam("contosociam.onmicrosoft.com"))
        var document = try EmulatorHarness.json(
            try await harness.get("\(ciam.absoluteString)/v2.0/.well-known/openid-configuration"))
        XCTAssertEqual(
            document["issuer"] as? String, "https://contosociam.ciamlogin.com/\(EmulatorTenant.contosoCIAM.id)/v2.0")

        let adfs = emulator.authority(.adfs, host: "adfs.contoso.com")
        document = try EmulatorHarness.json(
            try await harness.get("\(adfs.absoluteString)/.well-known/openid-configuration"))
        XCTAssertEqual(document["issuer"] as? String, "https://adfs.contoso.com/adfs")
        XCTAssertEqual(document["token_endpoint"] as? String, "https://adfs.contoso.com/adfs/oauth2/token/")

        let issuer = emulator.authority(.oidc(EmulatorTenant.fabrikam.id)).absoluteString
        document = try EmulatorHarness.json(try await harness.get("\(issuer)/.well-known/openid-configuration"))
        XCTAssertEqual(document["issuer"] as? String, issuer)
    }

    func testKeysServeTheSigningKeyThatVerifiesTokens() async throws {
        let response = try await harness.get("https://login.microsoftonline.com/common/discovery/v2.0/keys")
        let keys = try XCTUnwrap(try EmulatorHarness.json(response)["keys"] as? [[String: String]])
        XCTAssertEqual(keys.count, 1)
        let jwk = try XCTUnwrap(keys.first)
        XCTAssertEqual(jwk["kty"], "RSA")
        XCTAssertEqual(jwk["use"], "sig")
        XCTAssertEqual(jwk, emulator.signingKeyJWK)

        let tokens = try await harness.signIn("https://login.microsoftonline.com/common")
        let key = try JSONWebKey(kty: "RSA", n: jwk["n"], e: jwk["e"], kid: jwk["kid"], alg: "RS256")
        for name in ["id_token", "access_token"] {
            let jwt = try JWT(compact: try XCTUnwrap(tokens[name] as? String))
            XCTAssertEqual(jwt.keyID, jwk["kid"])
            XCTAssertTrue(try jwt.verifySignature(using: key), name)
        }
    }

    func testEchoesClientRequestIdAndKeepsConnectionsAlive() async throws {
        let correlation = UUID()
        let url = "https://login.microsoftonline.com/common/v2.0/.well-known/openid-configuration"
        let response = try await harness.get(url, correlationId: correlation)
        XCTAssertEqual(response.headers["client-request-id"]?.lowercased(), correlation.uuidString.lowercased())
        XCTAssertNotNil(response.headers["x-ms-request-id"])
        for _ in 0..<4 { _ = try await harness.get(url) }
        XCTAssertEqual(emulator.requestCount(.openIDConfiguration), 5)
        XCTAssertLessThan(emulator.acceptedConnections, 5)
    }

    func testUnknownPathIs404() async throws {
        let response = try await harness.get("\(harness.local)/common/oauth2/v2.0/nothing")
        XCTAssertEqual(response.statusCode, 404)
        XCTAssertEqual(emulator.requestCount(.unknown), 1)
    }
}
