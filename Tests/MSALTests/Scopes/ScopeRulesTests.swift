import Foundation
import XCTest

@testable import MSAL

final class ScopeRulesTests: XCTestCase {
    private let clientId = "aaaabbbb-0000-cccc-1111-dddd2222eeee"
    private lazy var aad = try! Authority.aad("https://login.microsoftonline.com/common")

    func testOrderedScopesRemoveExactDuplicatesOnly() {
        let table: [(input: [String], output: [String])] = [
            ([], []),
            (["user.read"], ["user.read"]),
            (["b", "a", "b", "c", "a"], ["b", "a", "c"]),
            (["User.Read", "user.read", "USER.READ"], ["User.Read", "user.read", "USER.READ"]),
            ([" user.read", "user.read", "user.read "], [" user.read", "user.read", "user.read "]),
        ]
        for row in table {
            XCTAssertEqual(OrderedScopes(row.input).values, row.output)
            XCTAssertEqual(OrderedScopes(row.input).scopeString, row.output.joined(separator: " "))
        }
    }

    func testWireScopes() throws {
        let requested = try ScopeRules.requestScopes(
            ["Mail.Read", "User.Read", "Mail.Read"], clientId: clientId, authority: aad)
        XCTAssertEqual(requested.values, ["Mail.Read", "User.Read"])
        XCTAssertEqual(
            ScopeRules.tokenRequestScopes(requested).scopeString, "Mail.Read User.Read openid profile offline_access")
        XCTAssertEqual(
            ScopeRules.authorizeRequestScopes(
                requested, extraScopesToConsent: ["Files.Read", "User.Read", "Files.Read"]
            )
            .scopeString,
            "Mail.Read User.Read openid profile offline_access Files.Read")
        XCTAssertEqual(ScopeRules.tokenRequestScopes(OrderedScopes([])).scopeString, "openid profile offline_access")
        XCTAssertEqual(try ScopeRules.requestScopes([], clientId: clientId, authority: aad).values, [])
    }

    func testReservedScopesAreRejectedExactly() throws {
        let message =
            "{(openid, profile, \"offline_access\")} are reserved scopes and may not be specified in the acquire token call."
        XCTAssertEqual(ScopeRules.reservedScopesMessage, message)
        for scopes in [["openid"], ["user.read", "profile"], ["offline_access", "mail.read"]] {
            assertMSALFailure(
                try ScopeRules.requestScopes(scopes, clientId: clientId, authority: aad), message: message, "\(scopes)")
        }
        for scopes in [["OpenID"], ["Profile"], ["OFFLINE_ACCESS"], [" openid"], ["email"]] {
            XCTAssertNoThrow(try ScopeRules.requestScopes(scopes, clientId: clientId, authority: aad), "\(scopes)")
        }
    }

    func testClientIdAsScopePerAuthorityKind() throws {
        let b2c = try Authority.b2c("https://x.b2clogin.com/tfp/x.onmicrosoft.com/B2C_1_a", validateFormat: true)
        XCTAssertEqual(try ScopeRules.requestScopes([clientId], clientId: clientId, authority: b2c).values, [clientId])
        for authority in [
            aad, try Authority.ciam("https://x.ciamlogin.com", validateFormat: true),
            try Authority.adfs("https://fs.contoso.com/adfs"), try Authority.oidc(issuer: "https://a.example.com"),
        ] {
            assertMSALFailure(
                try ScopeRules.requestScopes(["user.read", clientId], clientId: clientId, authority: authority),
                message: "Passing clientId \(clientId) as scope is not supported by \(authority.urlString). "
                    + "Please remove \(clientId) from your scopes list")
        }
        XCTAssertNoThrow(try ScopeRules.requestScopes([clientId.uppercased()], clientId: clientId, authority: aad))
        assertMSALFailure(
            try ScopeRules.requestScopes(["openid", clientId], clientId: clientId, authority: aad),
            message: ScopeRules.reservedScopesMessage)
    }

    func testNormalizedScopesForCacheMatching() {
        let target = NormalizedScopes(scopeString: "User.Read  Mail.Read openid\tprofile ")
        XCTAssertEqual(target.values, ["user.read", "mail.read", "openid\tprofile"])
        let table: [(requested: [String], subset: Bool, intersects: Bool)] = [
            (["user.read"], true, true),
            (["USER.READ", " Mail.Read "], true, true),
            (["user.read mail.read"], true, true),
            (["user.read", "files.read"], false, true),
            (["files.read"], false, false),
            ([], true, false),
            (["", "  "], true, false),
        ]
        for row in table {
            let requested = NormalizedScopes(row.requested)
            XCTAssertEqual(requested.isSubset(of: target), row.subset, "\(row.requested)")
            XCTAssertEqual(requested.intersects(target), row.intersects, "\(row.requested)")
            XCTAssertEqual(target.intersects(requested), row.intersects, "\(row.requested)")
        }
        XCTAssertTrue(NormalizedScopes(["", " "]).isEmpty)
    }

    func testDefaultScopeHelper() {
        let table: [(resource: String, scope: String)] = [
            ("https://graph.microsoft.com", "https://graph.microsoft.com/.default"),
            ("https://graph.microsoft.com/", "https://graph.microsoft.com//.default"),
            ("https://contoso.com/", "https://contoso.com//.default"),
            ("api://11111111-2222-3333-4444-555555555555", "api://11111111-2222-3333-4444-555555555555/.default"),
            ("", "/.default"),
        ]
        for row in table {
            XCTAssertEqual(MSALScopes.defaultScope(forResource: row.resource), row.scope)
            XCTAssertTrue(MSALScopes.isDefaultScope(row.scope))
        }
        XCTAssertTrue(MSALScopes.isDefaultScope("https://graph.microsoft.com/.DEFAULT"))
        XCTAssertFalse(MSALScopes.isDefaultScope("https://graph.microsoft.com/User.Read"))
        XCTAssertFalse(MSALScopes.isDefaultScope(".default"))
        XCTAssertEqual(MSALScopes.defaultScopeSuffix, "/.default")
    }
}
