import Foundation
import XCTest

@testable import MSAL

/// ``ResourceIndicator`` (RFC 8707) and where the `resource` parameter goes.
final class ResourceIndicatorTests: XCTestCase {
    func testRules() throws {
        let oidc = try Authority.oidc(issuer: "https://as.example.com/realms/mcp")
        XCTAssertNil(ResourceIndicator.problem(nil, for: oidc))
        XCTAssertNil(ResourceIndicator.problem("https://mcp.example.com/mcp", for: oidc))
        XCTAssertNil(ResourceIndicator.problem("urn:example:api", for: oidc))
        XCTAssertNil(
            ResourceIndicator.problem("https://api.example.com", for: try Authority.adfs("https://fs.contoso.com/adfs"))
        )
        XCTAssertEqual(ResourceIndicator.problem("", for: oidc), .notAbsolute)
        XCTAssertEqual(ResourceIndicator.problem("/mcp", for: oidc), .notAbsolute)
        XCTAssertEqual(ResourceIndicator.problem("https://mcp.example.com/mcp#x", for: oidc), .hasFragment)
        for authority in [
            try Authority.aad("https://login.microsoftonline.com/common"),
            try Authority.b2c(
                "https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/B2C_1_signin", validateFormat: false),
        ] {
            XCTAssertEqual(
                ResourceIndicator.problem("https://mcp.example.com/mcp", for: authority), .refusedByAuthority)
        }
        XCTAssertThrowsError(
            try ResourceIndicator.check(
                "https://x.example.com", for: try Authority.aad("https://login.microsoftonline.com/common"),
                correlationId: UUID())
        ) {
            XCTAssertEqual(($0 as NSError).userInfo[MSALInternalErrorCodeKey] as? Int, -42_000)
        }
    }

    func testSentInTheTokenBodyAndTheAuthorizeQuery() throws {
        let request = TokenRequest.refreshToken(
            "rt", redirectURI: nil, endpoint: fixtureURL("https://as.example.com/token"),
            common: .init(
                clientId: "c", scope: "mcp:tools offline_access", requestClientInfo: false, claims: nil,
                extraQueryParameters: nil, resource: "https://mcp.example.com/mcp"))
        XCTAssertEqual(request.parameters.last?.name, "resource")
        XCTAssertEqual(request.parameters.last?.value, "https://mcp.example.com/mcp")
        XCTAssertNil(request.endpoint.query, "in the body, not the URL")
        let without = TokenRequest.refreshToken(
            "rt", redirectURI: nil, endpoint: fixtureURL("https://as.example.com/token"),
            common: .init(
                clientId: "c", scope: "s", requestClientInfo: false, claims: nil, extraQueryParameters: nil))
        XCTAssertFalse(without.parameters.contains { $0.name == "resource" })

        var authorize = AuthorizationRequest(
            authorizeEndpoint: fixtureURL("https://as.example.com/authorize"), clientId: "c",
            redirectURI: "http://localhost:1", scope: "mcp:tools", correlationId: UUID(), state: "s", nonce: "n",
            pkce: PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"))
        authorize.resource = "https://mcp.example.com/mcp"
        authorize.extraQueryParameters = [("resource", "https://evil.example.com")]
        let pairs = FormURLEncoding.decode(try authorize.url().query ?? "") ?? []
        XCTAssertEqual(pairs.filter { $0.name == "resource" }.map(\.value), ["https://mcp.example.com/mcp"])
    }
}
