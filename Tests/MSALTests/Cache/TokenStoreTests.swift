import XCTest

@testable import MSAL

final class TokenStoreTests: XCTestCase {
    private let env = [CacheFixtures.environment]
    private var hid: String { CacheFixtures.homeAccountId }

    private func accessToken(
        _ store: TokenStore, _ scopes: [String], realm: String = CacheFixtures.tenant,
        client: String = CacheFixtures.clientId
    ) -> CacheAccessToken? {
        store.accessToken(
            homeAccountId: hid, environments: env, realm: realm, clientId: client,
            scopes: TokenStore.lowercasedScopes(scopes))
    }

    func testKeysAreMSALPythons() {
        var store = TokenStore()
        store.save(CacheFixtures.response(foci: "1"))
        let h = hid
        let c = CacheFixtures.clientId
        let t = CacheFixtures.tenant
        XCTAssertEqual(Array(store.accessTokens.keys), ["\(h)-localhost-accesstoken-\(c)-\(t)-mail.read user.read"])
        XCTAssertEqual(store.accessTokens.values.first?.target, "Mail.Read User.Read", "sorted, server case")
        XCTAssertEqual(Array(store.refreshTokens.keys), ["\(h)-localhost-refreshtoken-\(c)--mail.read user.read"])
        XCTAssertEqual(Array(store.idTokens.keys), ["\(h)-localhost-idtoken-\(c)-\(t)-"])
        XCTAssertEqual(Array(store.accounts.keys), ["\(h)-localhost-\(t)"])
        XCTAssertEqual(Array(store.appMetadata.keys), ["appmetadata-localhost-\(c)"])
        let upper = CacheAccessToken(
            homeAccountId: "A.B", environment: "Login.X", clientId: "C", realm: "R",
            target: "Scope.ONE", secret: "s")
        XCTAssertEqual(upper.key, "a.b-login.x-accesstoken-c-r-scope.one")
        XCTAssertEqual(
            CacheAppMetadata(clientId: "C", environment: "Login.X").key, "appmetadata-Login.X-C", "not lowercased")
    }

    func testTwoEntriesNeverShareAKey() {
        var store = TokenStore()
        let token = CacheAccessToken(
            homeAccountId: "UID.UTID", environment: "e", clientId: "c", realm: "r", target: "s", secret: "upper")
        store.upsert(token)
        var lower = token
        lower.homeAccountId = "uid.utid"
        lower.secret = "lower"
        store.upsert(lower)
        XCTAssertEqual(store.accessTokens.values.map(\.secret), ["lower"], "one key, one entry: the later")
        XCTAssertNil(
            store.accessToken(homeAccountId: "UID.UTID", environments: ["e"], realm: "r", clientId: "c", scopes: ["s"]),
            "and the index agrees")
        XCTAssertEqual(
            store.accessToken(homeAccountId: "uid.utid", environments: ["e"], realm: "r", clientId: "c", scopes: ["s"])?
                .secret, "lower")
        XCTAssertEqual(Array(store.homeAccountIds), ["uid.utid"])
        var pop = lower
        pop.tokenType = "pop"
        pop.secret = "pop"
        store.upsert(pop)
        XCTAssertEqual(store.accessTokens.values.map(\.secret), ["pop"], "the token type is not in the key")
    }

    func testSaveWritesEveryEntityAndQueriesFindThem() throws {
        var store = TokenStore()
        store.save(CacheFixtures.response(foci: "1"))
        XCTAssertEqual(accessToken(store, ["user.read"])?.secret, "at", "subset, case-insensitive")
        XCTAssertEqual(accessToken(store, ["USER.READ", "mail.read"])?.secret, "at")
        XCTAssertNil(accessToken(store, ["user.read", "files.read"]))
        XCTAssertNil(accessToken(store, ["user.read"], realm: CacheFixtures.otherTenant))
        XCTAssertNil(accessToken(store, ["user.read"], client: CacheFixtures.otherClientId))
        XCTAssertEqual(
            store.refreshToken(homeAccountId: hid, environments: env, clientId: CacheFixtures.clientId)?.secret, "rt")
        XCTAssertEqual(
            store.idToken(
                homeAccountId: hid, environments: env, realm: CacheFixtures.tenant,
                clientId: CacheFixtures.clientId)?.secret, "idtoken-\(CacheFixtures.uid)-\(CacheFixtures.tenant)")
        XCTAssertEqual(
            store.account(homeAccountId: hid, environments: env, realm: CacheFixtures.tenant)?.username,
            "alice@contoso.com")
        XCTAssertEqual(store.appMetadata(environments: env, clientId: CacheFixtures.clientId)?.familyId, "1")
        XCTAssertEqual(store.homeAccountIds(username: "ALICE@contoso.com"), [hid])
        XCTAssertEqual(store.signInState(clientId: CacheFixtures.clientId, homeAccountId: hid), .signedIn)
    }

    func testEnvironmentAliasesAreTriedInOrder() {
        var store = TokenStore()
        store.save(CacheFixtures.response(environment: "login.windows.net"))
        XCTAssertNotNil(
            store.accessToken(
                homeAccountId: hid, environments: ["login.microsoftonline.com", "login.windows.net"],
                realm: CacheFixtures.tenant, clientId: CacheFixtures.clientId, scopes: ["user.read"]))
        XCTAssertNil(
            store.accessToken(
                homeAccountId: hid, environments: ["login.microsoftonline.com"],
                realm: CacheFixtures.tenant, clientId: CacheFixtures.clientId, scopes: ["user.read"]))
    }

    func testIntersectingScopesReplaceDisjointOnesStay() {
        var store = TokenStore()
        store.save(CacheFixtures.response(scopes: ["User.Read", "Mail.Read"], accessToken: "first"))
        store.save(CacheFixtures.response(scopes: ["Files.Read"], accessToken: "files"))
        store.save(CacheFixtures.response(scopes: ["mail.read", "Calendars.Read"], accessToken: "second"))
        XCTAssertEqual(store.accessTokens.values.map(\.secret).sorted(), ["files", "second"])
        XCTAssertNil(accessToken(store, ["user.read"]))
        XCTAssertEqual(accessToken(store, ["calendars.read"])?.secret, "second")
        XCTAssertEqual(store.refreshTokens.values.count, 1, "one refresh token per account and client")
        XCTAssertEqual(store.refreshTokens.values.first!.secret, "rt")
    }

    func testScopeIntersectionIsCaseInsensitiveForASCIIAndUnicode() {
        XCTAssertTrue(CacheScopes.intersects("Mail.Read User.Read", lowercased: ["user.read"]))
        XCTAssertFalse(CacheScopes.intersects("Mail.Read User.Read", lowercased: ["user.rea"]))
        XCTAssertFalse(CacheScopes.intersects("Mail.ReadUser.Read", lowercased: ["user.read"]))
        XCTAssertTrue(CacheScopes.intersects("api://x/Écrire", lowercased: ["api://x/écrire"]))
        XCTAssertTrue(CacheScopes.intersects("api://x/Écrire a", lowercased: ["a"]))
        var store = TokenStore()
        store.save(CacheFixtures.response(scopes: ["api://x/Écrire"], accessToken: "first"))
        store.save(CacheFixtures.response(scopes: ["api://x/écrire"], accessToken: "second"))
        XCTAssertEqual(store.accessTokens.values.map(\.secret), ["second"])
    }

    func testFamilyRefreshTokensAndClientMismatch() {
        var store = TokenStore()
        store.save(CacheFixtures.response(refreshToken: "family-rt", foci: "1"))
        XCTAssertEqual(store.refreshTokens.values.count, 1, "one token carrying family_id, as MSAL Python")
        XCTAssertEqual(store.refreshTokens.values.first!.familyId, "1")
        // Another family app finds it through the family.
        let other = CacheFixtures.otherClientId
        XCTAssertNil(store.refreshToken(homeAccountId: hid, environments: env, clientId: other))
        XCTAssertEqual(store.familyId(environments: env, clientId: other), "1", "no app metadata: default family")
        XCTAssertEqual(
            store.familyRefreshToken(homeAccountId: hid, environments: env, familyId: "1")?.secret, "family-rt")
        XCTAssertEqual(
            store.accounts(clientId: other, familyId: "1", environments: nil, query: AccountQuery()).count, 1,
            "signed in through the family refresh token")
        store.clearFamilyId(environment: CacheFixtures.environment, clientId: other)
        XCTAssertEqual(store.familyId(environments: env, clientId: other), "")
        XCTAssertNil(store.familyRefreshToken(homeAccountId: hid, environments: env, familyId: ""))
        // A non-family response says so in app metadata.
        store.save(CacheFixtures.response(clientId: other, refreshToken: "own"))
        XCTAssertEqual(store.appMetadata(environments: env, clientId: other)?.familyId, "")
        XCTAssertNil(store.refreshToken(homeAccountId: hid, environments: env, clientId: other)?.familyId)
    }

    func testBadTokenRemovalOnlyDeletesTheSameSecret() {
        var store = TokenStore()
        store.save(CacheFixtures.response(refreshToken: "rotated"))
        XCTAssertFalse(
            store.removeRefreshToken(
                homeAccountId: hid, environment: CacheFixtures.environment,
                clientId: CacheFixtures.clientId, secret: "stale"))
        XCTAssertTrue(
            store.removeRefreshToken(
                homeAccountId: hid, environment: CacheFixtures.environment,
                clientId: CacheFixtures.clientId, secret: "rotated"))
        XCTAssertTrue(store.refreshTokens.values.isEmpty)
    }

    func testRemoveAccountKeepsFamilyTokenAndAccountAndSignsOut() {
        var store = TokenStore()
        store.save(CacheFixtures.response(refreshToken: "frt", foci: "1"))
        store.save(CacheFixtures.response(uid: "bob", refreshToken: "bob-rt", username: "bob@contoso.com"))
        store.removeAccount(homeAccountId: hid, clientId: CacheFixtures.clientId)
        XCTAssertNil(accessToken(store, ["user.read"]))
        XCTAssertNil(
            store.idToken(
                homeAccountId: hid, environments: env, realm: CacheFixtures.tenant, clientId: CacheFixtures.clientId))
        XCTAssertEqual(store.familyRefreshToken(homeAccountId: hid, environments: env, familyId: "1")?.secret, "frt")
        XCTAssertNotNil(store.account(homeAccountId: hid, environments: env, realm: CacheFixtures.tenant))
        XCTAssertEqual(store.signInState(clientId: CacheFixtures.clientId, homeAccountId: hid), .signedOut)
        let listed = store.accounts(
            clientId: CacheFixtures.clientId, familyId: "1", environments: nil, query: AccountQuery())
        XCTAssertEqual(listed.map(\.username), ["bob@contoso.com"], "signed_out always excludes")
        let all = store.accounts(
            clientId: CacheFixtures.clientId, familyId: "1", environments: nil,
            query: AccountQuery(returnOnlySignedInAccounts: false))
        XCTAssertEqual(all.count, 1)
        // Bob's entities survived the swaps.
        XCTAssertEqual(
            store.refreshToken(
                homeAccountId: "bob.\(CacheFixtures.tenant)", environments: env,
                clientId: CacheFixtures.clientId)?.secret, "bob-rt")
        // Signing in again marks it signed in.
        store.save(CacheFixtures.response(accessToken: "again"))
        XCTAssertEqual(
            store.accounts(clientId: CacheFixtures.clientId, familyId: "1", environments: nil, query: AccountQuery())
                .count, 2)
    }

    func testWipeAccountAndWipeAll() {
        var store = try! CacheDocument.read(Array(CacheFixtures.pythonDocument.utf8))
        store.save(CacheFixtures.response(clientId: CacheFixtures.otherClientId))
        store.save(CacheFixtures.response(uid: "bob"))
        store.wipeAccount(homeAccountId: hid, clientId: CacheFixtures.clientId)
        XCTAssertFalse(store.homeAccountIds.contains(hid), "every client's credentials and the account records")
        XCTAssertTrue(store.homeAccountIds.contains("bob.\(CacheFixtures.tenant)"))
        store.wipeAllAccounts()
        XCTAssertTrue(store.isEmpty)
        XCTAssertEqual(store.unknownSections.map(\.name), ["ForeignSection"])
    }

    func testMultiTenantAccountMergesProfiles() {
        var store = TokenStore()
        store.save(CacheFixtures.response(realm: CacheFixtures.otherTenant))
        store.save(CacheFixtures.response())
        store.save(CacheFixtures.response(uid: "bob", username: "bob@contoso.com"))
        let accounts = store.accounts(
            clientId: CacheFixtures.clientId, familyId: "1", environments: env, query: AccountQuery())
        XCTAssertEqual(accounts.count, 2)
        let alice = try! XCTUnwrap(accounts.first { $0.homeAccountId == hid })
        XCTAssertEqual(
            Set(alice.tenantProfiles.map(\.account.realm)), [CacheFixtures.tenant, CacheFixtures.otherTenant])
        XCTAssertEqual(alice.homeProfile?.account.realm, CacheFixtures.tenant)
        XCTAssertEqual(alice.homeProfile?.idToken, "idtoken-\(CacheFixtures.uid)-\(CacheFixtures.tenant)")
        XCTAssertEqual(
            store.accounts(
                clientId: CacheFixtures.clientId, familyId: "1", environments: nil,
                query: AccountQuery(identifier: hid.uppercased())
            ).count, 1)
        XCTAssertEqual(
            store.accounts(
                clientId: CacheFixtures.clientId, familyId: "1", environments: nil,
                query: AccountQuery(username: "BOB@contoso.com")
            ).map(\.username), ["bob@contoso.com"])
        XCTAssertEqual(
            store.accounts(
                clientId: CacheFixtures.clientId, familyId: "1", environments: nil,
                query: AccountQuery(tenantProfileIdentifier: CacheFixtures.uid.uppercased())
            ).count, 1)
        XCTAssertTrue(
            store.accounts(
                clientId: CacheFixtures.clientId, familyId: "1", environments: nil,
                query: AccountQuery(username: "nobody")
            ).isEmpty)
    }

    func testPythonCacheGivesTheRightAccountsAndTokens() throws {
        let store = try CacheDocument.read(Array(CacheFixtures.pythonDocument.utf8))
        let accounts = store.accounts(
            clientId: CacheFixtures.clientId, familyId: "1", environments: env, query: AccountQuery())
        XCTAssertEqual(accounts.map(\.username), ["Alice@Contoso.com"])
        XCTAssertEqual(accounts.first?.tenantProfiles.first?.isHomeTenant, true)
        let token = try XCTUnwrap(accessToken(store, ["user.read"]))
        XCTAssertEqual(AccessTokenStatus(token, now: 1_700_000_100, buffer: 300), .valid(refreshNeeded: false))
        XCTAssertEqual(
            store.refreshToken(homeAccountId: hid, environments: env, clientId: CacheFixtures.clientId)?.secret,
            "rt-secret")
    }

    func testExpiryArithmetic() {
        var token = CacheAccessToken(
            homeAccountId: "h", environment: "e", clientId: "c", realm: "r", target: "t",
            secret: "s", cachedAt: 1000, expiresOn: 5000, extendedExpiresOn: 9000, refreshOn: 3000)
        XCTAssertEqual(AccessTokenStatus(token, now: 2000, buffer: 300), .valid(refreshNeeded: false))
        XCTAssertEqual(AccessTokenStatus(token, now: 3001, buffer: 300), .valid(refreshNeeded: true))
        XCTAssertEqual(
            AccessTokenStatus(token, now: 4700, buffer: 300), .valid(refreshNeeded: true), "exactly at the buffer")
        XCTAssertEqual(AccessTokenStatus(token, now: 4701, buffer: 300), .extendedLifetime)
        XCTAssertEqual(AccessTokenStatus(token, now: 9000, buffer: 300), .expired)
        XCTAssertEqual(AccessTokenStatus(token, now: 999, buffer: 0), .expired, "cached_at in the future")
        token.extendedExpiresOn = nil
        XCTAssertEqual(AccessTokenStatus(token, now: 4900, buffer: 300), .expired)
    }

    func testRemovalKeepsIndexesConsistent() {
        var store = TokenStore()
        for index in 0..<50 { store.save(CacheFixtures.response(uid: "u\(index)", accessToken: "at\(index)")) }
        for index in stride(from: 0, to: 50, by: 3) {
            store.wipeAccount(
                homeAccountId: "u\(index).\(CacheFixtures.tenant)", clientId: CacheFixtures.clientId)
        }
        for index in 0..<50 {
            let found = store.accessToken(
                homeAccountId: "u\(index).\(CacheFixtures.tenant)", environments: env,
                realm: CacheFixtures.tenant, clientId: CacheFixtures.clientId, scopes: ["user.read"])
            XCTAssertEqual(found?.secret, index % 3 == 0 ? nil : "at\(index)")
        }
        let reloaded = try! CacheDocument.read(CacheDocument.write(store))
        XCTAssertEqual(reloaded.counts.accessTokens, store.counts.accessTokens)
        XCTAssertEqual(reloaded.counts.accounts, 33)
    }

    func testLoadingKeepsTheNewerOfDuplicates() {
        // Many accounts, with copies of every kind under other keys (another library's) among them.
        var loaded = TokenStore()
        var dropped = 0
        for index in 0..<600 {
            var one = TokenStore()
            one.save(
                CacheFixtures.response(
                    uid: "user-\(index)", accessToken: "at-\(index)", foci: index % 3 == 0 ? "1" : nil))
            let accessToken = one.accessTokens.first!
            let refreshToken = one.refreshTokens.first!
            let idToken = one.idTokens.first!
            let account = one.accounts.first!
            if index % 7 == 0 {
                var older = accessToken.value
                older.cachedAt = (older.cachedAt ?? 0) - 100
                older.secret = "older-\(index)"
                dropped += loaded.addLoaded(older, key: "older-\(index)")
            }
            dropped += loaded.addLoaded(accessToken.value, key: accessToken.key)
            dropped += loaded.addLoaded(refreshToken.value, key: refreshToken.key)
            dropped += loaded.addLoaded(idToken.value, key: idToken.key)
            dropped += loaded.addLoaded(account.value, key: account.key)
            if index % 7 == 0 {
                var newer = refreshToken.value
                newer.lastModificationTime = "2000000000"
                newer.secret = "newer-\(index)"
                dropped += loaded.addLoaded(newer, key: "newer-\(index)")
                dropped += loaded.addLoaded(idToken.value, key: "copy-\(index)")
                dropped += loaded.addLoaded(account.value, key: "copy-\(index)")
            }
        }
        XCTAssertEqual(loaded.counts.accessTokens, 600, "the older copies are gone")
        XCTAssertEqual(loaded.counts.refreshTokens, 600)
        XCTAssertEqual(loaded.counts.idTokens, 600)
        XCTAssertEqual(loaded.counts.accounts, 600)
        XCTAssertEqual(dropped, 4 * 86)
        XCTAssertEqual(loaded.refreshTokens.values.filter { $0.secret.hasPrefix("newer-") }.count, 86)
        XCTAssertFalse(loaded.accessTokens.values.contains { $0.secret.hasPrefix("older-") })
        XCTAssertEqual(loaded.refreshTokens["newer-7"]?.secret, "newer-7", "kept under the key it was read under")
    }
}
