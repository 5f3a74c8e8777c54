import Foundation
import XCTest

@testable import MSAL

/// ``ChallengeTokenDecision``: scopes, claims, authority and the cache rule for a challenge.
final class ChallengeTokenDecisionTests: XCTestCase {
    private let configured = try! Authority.aad("https://login.microsoftonline.com/common")

    private func plan(
        claims: String? = nil, scopes: [String] = [], authority: String? = nil, error: String? = nil,
        requested: [String] = ["User.Read"], requestedAuthority: Authority? = nil, configured: Authority? = nil
    ) -> Result<ChallengeTokenPlan, ChallengeTokenDecision.Problem> {
        ChallengeTokenDecision.plan(
            claims: claims, challengeScopes: scopes, challengeAuthority: authority.flatMap(URL.init(string:)),
            error: error, requestedScopes: requested, requestedAuthority: requestedAuthority,
            configured: configured ?? self.configured)
    }

    func testScopes() throws {
        XCTAssertEqual(try plan(scopes: ["a"]).get().scopes, ["User.Read"], "the request's scopes first")
        XCTAssertEqual(try plan(scopes: ["a", "b"], requested: []).get().scopes, ["a", "b"])
        XCTAssertEqual(plan(requested: []), .failure(.noScopes))
    }

    func testClaimsAndRefusedTokensSkipTheCache() throws {
        let claims = #"{"access_token":{"nbf":{"essential":true,"value":"1"}}}"#
        let withClaims = try plan(claims: claims, error: "insufficient_claims").get()
        XCTAssertEqual(withClaims.claims, claims)
        XCTAssertTrue(withClaims.skipCachedToken)
        XCTAssertTrue(try plan(error: "invalid_token").get().skipCachedToken)
        XCTAssertTrue(try plan(error: "INSUFFICIENT_CLAIMS").get().skipCachedToken)
        XCTAssertFalse(try plan(scopes: ["Mail.Read"], error: "insufficient_scope").get().skipCachedToken)
        XCTAssertFalse(try plan().get().skipCachedToken)
        XCTAssertNil(try plan().get().claims)
    }

    func testTheChallengesTenantOnTheConfiguredHostOnly() throws {
        XCTAssertEqual(
            try plan(authority: "https://login.microsoftonline.com/contoso.com").get().authority?.urlString,
            "https://login.microsoftonline.com/contoso.com")
        XCTAssertNil(
            try plan(authority: "https://login.microsoftonline.com/common").get().authority, "same as configured")
        XCTAssertNil(
            try plan(authority: "https://evil.example.com/contoso.com").get().authority, "another host is ignored")
        XCTAssertNil(try plan(authority: "https://login.microsoftonline.us/contoso.us").get().authority)
        XCTAssertNil(
            try plan(
                authority: "https://login.microsoftonline.com/contoso.com",
                requestedAuthority: try Authority.aad("https://login.microsoftonline.com/fabrikam.com")
            ).get().authority, "the request's authority wins")
        XCTAssertNil(
            try plan(
                authority: "https://idp.example.com/contoso",
                configured: try Authority.oidc(issuer: "https://idp.example.com/realm")
            ).get().authority, "only an Entra app takes a tenant from a challenge")
    }
}
