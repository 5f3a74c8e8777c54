import Foundation
import XCTest

@testable import MSAL

/// The values the silent flow passes between its steps: the cache lookup and the refresh attempt.
final class SilentFlowValuesTests: XCTestCase {
    private let now: Int64 = 1_800_000_000

    private func token(secret: String = "at", expiresIn: Int64 = 3600) -> CacheAccessToken {
        CacheAccessToken(
            homeAccountId: "u.t", environment: "e", clientId: "c", realm: "t", target: "s", secret: secret,
            tokenType: "Bearer", cachedAt: now - 60, expiresOn: now + expiresIn)
    }

    private let hit = SilentFlow.CacheHit(secret: "at", target: "s", expiresOn: nil, account: nil, idToken: nil)

    // MARK: - Lookup

    func testStatusOfEachLookup() {
        XCTAssertEqual(SilentFlow.CacheLookup.hit(hit).status, .valid(refreshNeeded: false))
        XCTAssertEqual(SilentFlow.CacheLookup.needsRefresh(token(), .expired).status, .expired)
        XCTAssertEqual(
            SilentFlow.CacheLookup.needsRefresh(token(), .valid(refreshNeeded: false)).status,
            .valid(refreshNeeded: false), "a request that skips the cache")
        XCTAssertNil(SilentFlow.CacheLookup.miss.status)
    }

    func testTheLookupAndTheDecisionGiveTheFallback() {
        let due = SilentFlow.CacheLookup.needsRefresh(token(secret: "due"), .valid(refreshNeeded: true))
        let fallback = due.fallback(for: .refresh(fallback: .stillValid))
        XCTAssertEqual(fallback?.token.secret, "due")
        XCTAssertEqual(fallback?.fallback, .stillValid)
        let none = due.fallback(for: .refresh(fallback: .none))
        XCTAssertEqual(none?.token.secret, "due", "kept to tell a token refreshed meanwhile from this one")
        XCTAssertEqual(none?.fallback, SilentTokenDecision.Fallback.none)
        XCTAssertNil(due.fallback(for: .returnCached))
        XCTAssertNil(SilentFlow.CacheLookup.miss.fallback(for: .refresh(fallback: .none)))
        XCTAssertNil(SilentFlow.CacheLookup.hit(hit).fallback(for: .returnCached))
    }

    /// The lookup's status through the pure decision, as the flow asks it.
    func testDecisionsOfLookups() {
        let rows: [(String, SilentFlow.CacheLookup, Bool, SilentTokenDecision)] = [
            ("hit", .hit(hit), false, .returnCached),
            ("miss", .miss, false, .refresh(fallback: .none)),
            ("due", .needsRefresh(token(), .valid(refreshNeeded: true)), false, .refresh(fallback: .stillValid)),
            ("skip cache", .needsRefresh(token(), .valid(refreshNeeded: false)), true, .refresh(fallback: .none)),
            ("extended", .needsRefresh(token(), .extendedLifetime), false, .refresh(fallback: .extendedLifetime)),
            ("expired", .needsRefresh(token(), .expired), false, .refresh(fallback: .none)),
        ]
        for (name, lookup, skipCache, expected) in rows {
            XCTAssertEqual(
                SilentTokenDecision.decide(status: lookup.status, skipCache: skipCache, extendedLifetimeEnabled: true),
                expected, name)
        }
    }

    // MARK: - Refresh attempt

    private func attempt(
        forceRefresh: Bool = false, claims: MSALClaimsRequest? = nil, sentClaims: String? = nil,
        resource: String? = nil, scopes: [String] = ["User.Read", "Mail.Read"]
    ) throws -> SilentFlow.RefreshAttempt {
        let authority = try Authority.detect("https://login.microsoftonline.com/contoso.onmicrosoft.com")
        let configuration = OpenIDConfiguration(
            authorizationEndpoint: fixtureURL("https://login.microsoftonline.com/t/oauth2/v2.0/authorize"),
            tokenEndpoint: fixtureURL("https://login.microsoftonline.com/t/oauth2/v2.0/token"),
            issuer: "https://login.microsoftonline.com/t/v2.0", endSessionEndpoint: nil,
            deviceAuthorizationEndpoint: nil, jwksURI: nil)
        let resolved = ResolvedAuthority(
            authority: authority, networkAuthority: authority, cacheEnvironment: "login.windows.net",
            cacheLookupEnvironments: ["login.windows.net", "login.microsoftonline.com"],
            aliases: ["login.windows.net", "login.microsoftonline.com"], configuration: configuration)
        let account = MSALAccount(
            username: "alice@contoso.com", homeAccountId: "u.t", environment: "login.windows.net",
            tenantProfiles: nil, homeIdToken: nil)
        return SilentFlow.RefreshAttempt(
            request: .init(
                scopes: scopes, account: account, loginHint: nil, authority: nil, claims: claims,
                correlationId: UUID(), extraQueryParameters: nil, forceRefresh: forceRefresh, resource: resource),
            homeAccountId: "u.t", account: account, resolved: resolved, realm: "t", scopes: OrderedScopes(scopes),
            claims: sentClaims, cached: nil)
    }

    func testLookupScopeIsTheResolvedAuthoritysForTheRealm() throws {
        let scope = try attempt().lookupScope
        XCTAssertEqual(scope.realm, "t")
        XCTAssertEqual(scope.environments, ["login.windows.net", "login.microsoftonline.com"])
    }

    func testKeySeparatesWhatChangesTheTokenRequest() throws {
        let base = try attempt().key
        XCTAssertEqual(try attempt().key, base, "the correlation id does not count")
        XCTAssertEqual(try attempt(scopes: ["user.read", "mail.read"]).key, base, "scopes are case-insensitive")
        for (name, other) in [
            ("force", try attempt(forceRefresh: true)),
            ("claims", try attempt(sentClaims: #"{"access_token":{}}"#)),
            ("resource", try attempt(resource: "https://graph.microsoft.com")),
            ("scopes", try attempt(scopes: ["User.Read"])),
        ] {
            XCTAssertNotEqual(other.key, base, name)
        }
        XCTAssertEqual(
            base,
            [
                "u.t", "https://login.microsoftonline.com/contoso.onmicrosoft.com", "t", "user.read mail.read", "",
                "", "",
            ].joined(separator: "\u{1F}"))
    }

    func testAFreshTokenIsReturnedOnlyWhenTheRequestAllowsTheCache() throws {
        XCTAssertTrue(try attempt().mayReturnFreshToken)
        XCTAssertTrue(try attempt(sentClaims: "capabilities only").mayReturnFreshToken)
        XCTAssertFalse(try attempt(forceRefresh: true).mayReturnFreshToken)
        XCTAssertFalse(try attempt(claims: MSALClaimsRequest(jsonString: #"{"id_token":{}}"#)).mayReturnFreshToken)
        // A resource indicator looks for a token of that resource only: one may be returned.
        XCTAssertTrue(try attempt(resource: "https://graph.microsoft.com").mayReturnFreshToken)
    }
}
