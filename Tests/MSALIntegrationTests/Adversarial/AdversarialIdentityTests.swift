import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// Token answers that name someone else or cannot be trusted as an identity (OpenID Connect
/// Core 3.1.3.7 and 12.2): unsigned id tokens, another audience or issuer, another `sub` or
/// `oid`, a `client_info` of another user, malformed times. Each is a -42600 at sign-in, at
/// refresh and at the device code grant, and changes nothing in the cache file.
final class AdversarialIdentityTests: FaultSuiteCase {
    private let mallory = "mallory@contoso.onmicrosoft.com"

    private func assertRejected(
        _ label: String, word: String? = nil, file: StaticString = #filePath, line: UInt = #line,
        _ body: () async throws -> Void
    ) async {
        let error = await assertFailure(
            code: MSALError.internal.rawValue, internalCode: -42600, file: file, line: line, body)
        let description = error?.userInfo[MSALErrorDescriptionKey] as? String ?? ""
        if let word {
            XCTAssertTrue(description.contains(word), "\(label): \(description)", file: file, line: line)
        }
    }

    private func refresh(_ account: MSALAccount) async throws {
        let result = try await app.application.acquireTokenSilent(with: silent(account, force: true))
        remember(result)
    }

    /// Alterations no answer may carry, with a word the error must contain.
    private var forgeries: [(EmulatorFault.IDTokenAlteration, String)] {
        [
            (.all([.unsigned, .claims(["preferred_username": EmulatorFault.jsonString(mallory)])]), "alg"),
            (.header(["alg": nil]), "alg"),
            (.header(["alg": "\"HS256\""]), "alg"),
            (.header(["alg": "\"None\""]), "alg"),
            (.audience("11111111-2222-3333-4444-555555555555"), "audience"),
            (.issuer("https://evil.example/8d2f5e1a-3b4c-4d6e-9f70-a1b2c3d4e5f6/v2.0"), "issuer"),
            (.claims(["sub": "\"someone-else\""]), "sub"),
            (.claims(["oid": "\"99999999-9999-4999-8999-999999999999\""]), "oid"),
            (.claims(["exp": "\"abc\""]), "exp"),
            (.claims(["exp": "1e30"]), "exp"),
            (.claims(["exp": nil]), "exp"),
            (.claims(["iat": "\"yesterday\""]), "iat"),
            (.claims(["nbf": "-1e30"]), "nbf"),
        ]
    }

    func testAForgedIDTokenOnRefreshChangesNothing() async throws {
        let account = try await signIn().account
        for (alteration, word) in forgeries {
            let label = "\(alteration)"
            let before = CacheSnapshot.read(cacheFile)
            let sent = emulator.tokenRequestCount(grantType: .refreshToken)
            emulator.inject(.alterIDToken(alteration), at: .token, grantType: .refreshToken)
            await assertRejected(label, word: word) { try await self.refresh(account) }
            XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken) - sent, 1, label)
            assertCacheUnchanged(since: before)
            XCTAssertEqual(try app.application.allAccounts().map(\.username), [EmulatorUser.alice.username], label)
        }
        // A genuine answer afterwards refreshes, and the username is still Alice's.
        try await refresh(account)
        XCTAssertEqual(try app.application.allAccounts().map(\.username), [EmulatorUser.alice.username])
    }

    /// A refresh answer's id token is not refused for an `exp` in the past by this machine's
    /// clock (OpenID Connect Core §12.2 asks the same issuer, subject and audience, not a fresh
    /// expiry): a clock an hour fast, or a slow round trip while a test's clock races, must not
    /// cost every refresh. A sign-in's expired id token is refused (below, and FaultResponseTests).
    func testAnExpiredIDTokenOnRefreshIsNotRefused() async throws {
        let account = try await signIn().account
        emulator.inject(.alterIDToken(.expired(secondsAgo: 3600)), at: .token, grantType: .refreshToken)
        try await refresh(account)
        XCTAssertEqual(try app.application.allAccounts().map(\.username), [EmulatorUser.alice.username])
    }

    func testAClientInfoNamingAnotherUserOnRefreshCreatesNoAccount() async throws {
        let account = try await signIn().account
        let cases: [EmulatorFault.IDTokenAlteration] = [
            .clientInfo(uid: EmulatorUser.bob.objectId, utid: EmulatorTenant.contoso.id),
            // Everything about Bob, consistently: still not the account being refreshed.
            .all([
                .clientInfo(uid: EmulatorUser.bob.objectId, utid: EmulatorTenant.contoso.id),
                .claims([
                    "oid": EmulatorFault.jsonString(EmulatorUser.bob.objectId),
                    "preferred_username": EmulatorFault.jsonString(EmulatorUser.bob.username),
                ]),
            ]),
        ]
        for alteration in cases {
            let before = CacheSnapshot.read(cacheFile)
            emulator.inject(.alterIDToken(alteration), at: .token, grantType: .refreshToken)
            await assertRejected("\(alteration)", word: "account") { try await self.refresh(account) }
            assertCacheUnchanged(since: before)
            XCTAssertEqual(try app.application.allAccounts().count, 1)
        }
    }

    func testAForgedIDTokenAtSignInIsRefused() async throws {
        try await signIn()
        let cases: [(EmulatorFault.IDTokenAlteration, String)] = [
            (.unsigned, "alg"),
            (.claims(["exp": "\"abc\""]), "exp"),
            (.claims(["exp": nil]), "exp"),
            (.header(["alg": "\"HS256\""]), "alg"),
            // A tenant id that is no path segment: the expected issuer is built from it for
            // `common`, and building it trapped.
            (.claims(["tid": "\"8d2f5e1a-3b4c`4d6e\""]), "tid"),
            (.claims(["tid": "\"a/b c%zz\""]), "tid"),
            (.expired(secondsAgo: 3600), "expired"),
        ]
        for (alteration, word) in cases {
            let before = CacheSnapshot.read(cacheFile)
            emulator.inject(.alterIDToken(alteration), at: .token, grantType: .authorizationCode)
            await assertRejected("\(alteration)", word: word) { try await self.signIn(EmulatorUser.bob.username) }
            assertCacheUnchanged(since: before)
            XCTAssertNil(try app.application.account(forUsername: EmulatorUser.bob.username), "\(alteration)")
        }
    }

    func testAForgedIDTokenAtTheDeviceCodeGrantIsRefused() async throws {
        try await signIn()
        let emulator = self.emulator!
        for (alteration, word) in [
            (EmulatorFault.IDTokenAlteration.unsigned, "alg"), (.claims(["exp": "1e30"]), "exp"),
        ] {
            let before = CacheSnapshot.read(cacheFile)
            emulator.inject(.alterIDToken(alteration), at: .token, grantType: .deviceCode)
            await assertRejected("\(alteration)", word: word) {
                _ = try await self.app.application.acquireTokenWithDeviceCode(
                    parameters: MSALTokenParameters(scopes: ["User.Read"]),
                    deviceCodeCallback: { info in
                        try? emulator.approveDeviceCode(userCode: info.userCode, as: EmulatorUser.bob.username)
                    })
            }
            assertCacheUnchanged(since: before)
        }
    }

    func testASignInAsTheSameAccountWithAnotherSubjectIsRefused() async throws {
        // A new sign-in of Alice (same client_info) whose id token carries another `sub` than the
        // one cached for her in this tenant: the cache keeps what it had.
        try await signIn()
        let before = CacheSnapshot.read(cacheFile)
        emulator.inject(.alterIDToken(.claims(["sub": "\"someone-else\""])), at: .token, grantType: .authorizationCode)
        await assertRejected("sub at sign-in", word: "sub") { try await self.signIn() }
        assertCacheUnchanged(since: before)
    }

    func testAnImportedRefreshTokenIsCheckedToo() async throws {
        // An import has no account yet: the id token is checked, and when the account it names is
        // cached in that tenant, the sub and oid must be the cached ones.
        try await signIn()
        let refreshToken = try XCTUnwrap(
            CacheSnapshot.read(cacheFile).objects("RefreshToken").first?["secret"] as? String)
        for (alteration, word) in [
            (EmulatorFault.IDTokenAlteration.unsigned, "alg"), (.claims(["sub": "\"someone-else\""]), "sub"),
            (.claims(["exp": "\"abc\""]), "exp"),
        ] {
            let before = CacheSnapshot.read(cacheFile)
            emulator.inject(.alterIDToken(alteration), at: .token, grantType: .refreshToken)
            await assertRejected("import \(alteration)", word: word) {
                _ = try await self.app.application.acquireToken(byRefreshToken: refreshToken, scopes: ["User.Read"])
            }
            assertCacheUnchanged(since: before)
        }
        let imported = try await app.application.acquireToken(byRefreshToken: refreshToken, scopes: ["User.Read"])
        remember(imported)
        XCTAssertEqual(imported.account.username, EmulatorUser.alice.username)
        XCTAssertEqual(try app.application.allAccounts().count, 1)
    }

    func testAGuestTenantRefreshIsComparedWithinItsTenantOnly() async throws {
        // Alice at home and as a guest in Fabrikam: one account, two tenants, two object ids.
        let home = try await signIn()
        let fabrikam = try MSALAuthority.authority(
            with: XCTUnwrap(URL(string: "https://login.microsoftonline.com/\(EmulatorTenant.fabrikam.id)")))
        let guest = try await app.signIn { $0.authority = fabrikam }
        remember(guest)
        XCTAssertEqual(guest.account.identifier, home.account.identifier)
        let account = try XCTUnwrap(try app.application.allAccounts().first)
        let parameters = silent(account, force: true)
        parameters.authority = fabrikam
        // The genuine guest refresh passes: its oid is compared with the guest id token, not the home one.
        remember(try await app.application.acquireTokenSilent(with: parameters))

        // The home tenant's oid in a Fabrikam answer is not this account's Fabrikam identity.
        let before = CacheSnapshot.read(cacheFile)
        emulator.inject(
            .alterIDToken(.claims(["oid": EmulatorFault.jsonString(EmulatorUser.alice.objectId)])), at: .token,
            grantType: .refreshToken)
        await assertRejected("home oid in the guest tenant", word: "oid") {
            _ = try await self.app.application.acquireTokenSilent(with: parameters)
        }
        assertCacheUnchanged(since: before)
    }
}
