import Foundation
import MSALTestSupport
import XCTest

@testable import MSAL

final class AccountLapseTests: XCTestCase {
    private let day: Int64 = 86_400
    private let lifetime: Int64 = 90 * 86_400
    private let now: Int64 = 1_800_000_000

    private func decide(_ evidence: AccountLapse.Evidence) -> AccountLapse {
        AccountLapse.decide(evidence, now: now, unusedLifetime: lifetime)
    }

    private func decide(
        accessTokensServableUntil: Int64? = nil, refreshTokenExpiries: [Int64?] = [], lastActivity: Int64? = nil
    ) -> AccountLapse {
        var evidence = AccountLapse.Evidence(
            accessTokensServableUntil: accessTokensServableUntil, lastActivity: lastActivity)
        for expiry in refreshTokenExpiries { evidence.addRefreshToken(expiresOn: expiry) }
        return decide(evidence)
    }

    // MARK: The decision, without a store

    func testAnAccessTokenThatCanStillBeServedKeepsTheAccount() {
        let unused = now - 200 * day
        XCTAssertEqual(
            decide(accessTokensServableUntil: now + 1, refreshTokenExpiries: [nil], lastActivity: unused),
            .keepUsableAccessToken, "even unused for 200 days")
        XCTAssertEqual(
            decide(.init(accessTokenOfUnknownExpiry: true, lastActivity: unused)), .keepUsableAccessToken)
        XCTAssertEqual(
            decide(accessTokensServableUntil: now, refreshTokenExpiries: [nil], lastActivity: unused),
            .removeUnused, "expires_on == now is expired")
    }

    func testUnusedForTheLifetimeLapsesAndADayLessDoesNot() {
        XCTAssertEqual(
            decide(
                accessTokensServableUntil: now - lifetime, refreshTokenExpiries: [nil], lastActivity: now - lifetime),
            .removeUnused)
        XCTAssertEqual(
            decide(
                accessTokensServableUntil: now - day, refreshTokenExpiries: [nil], lastActivity: now - lifetime + day),
            .keepRefreshToken)
        XCTAssertEqual(
            decide(refreshTokenExpiries: [nil, nil], lastActivity: now - lifetime - 1), .removeUnused,
            "the newest activity of the account counts, not each token's")
    }

    func testARefreshTokenOfUnknownAgeKeepsTheAccount() {
        XCTAssertEqual(
            decide(
                .init(
                    refreshTokens: 1, refreshTokensWithoutExpiry: 1, refreshTokensOfUnknownAge: 1,
                    lastActivity: now - 400 * day)),
            .keepUnknownAge, "another MSAL's token without last_modification_time")
    }

    func testRefreshTokensPastTheirStatedExpiry() {
        XCTAssertEqual(
            decide(refreshTokenExpiries: [now - 10, now], lastActivity: now - day),
            .removeRefreshTokensExpired)
        XCTAssertEqual(
            decide(refreshTokenExpiries: [now - 10, now + 10], lastActivity: now - day), .keepRefreshToken,
            "one still redeemable")
        XCTAssertEqual(
            decide(refreshTokenExpiries: [now - 10, nil], lastActivity: now - day), .keepRefreshToken,
            "one whose expiry the server did not state")
        XCTAssertEqual(
            decide(refreshTokenExpiries: [now - day], lastActivity: now - 10), .keepRefreshToken,
            "a token acquired after the stated expiry shows the refresh token still worked")
    }

    func testNothingLeftToAcquireWith() {
        XCTAssertEqual(decide(.init()), .removeNothingLeft, "Account and id token records only")
        XCTAssertEqual(
            decide(.init(accessTokensServableUntil: now - 1, lastActivity: now - 3600)), .keepRecentlyUsed,
            "a rejected refresh token, or a provider that gives none: listed until unused for the lifetime")
        XCTAssertEqual(
            decide(.init(accessTokensServableUntil: now - 1, lastActivity: now - lifetime)), .removeUnused)
    }

    func testHostileTimesDoNotTrapAndKeep() {
        let huge = Int64.max
        XCTAssertEqual(decide(.init(accessTokensServableUntil: huge)), .keepUsableAccessToken)
        XCTAssertEqual(
            decide(refreshTokenExpiries: [Int64.min], lastActivity: huge), .keepRefreshToken,
            "activity in the future")
        XCTAssertEqual(
            AccountLapse.decide(.init(lastActivity: Int64.min), now: Int64.min + 1, unusedLifetime: lifetime),
            .keepRecentlyUsed)
    }

    func testAChangeChecksAtMostOnceAMinuteUnlessTheClockWentBack() {
        XCTAssertTrue(AccountLapse.isCheckDue(now: now, lastCheck: nil))
        XCTAssertFalse(AccountLapse.isCheckDue(now: now + 59, lastCheck: now))
        XCTAssertTrue(AccountLapse.isCheckDue(now: now + 60, lastCheck: now))
        XCTAssertTrue(AccountLapse.isCheckDue(now: now - 1, lastCheck: now))
    }

    // MARK: The store

    private func record(uid: String, client: String = CacheFixtures.clientId, cachedAt: Int64, expiresIn: Int64 = 3600)
        -> TokenResponseRecord
    {
        CacheFixtures.response(uid: uid, clientId: client, cachedAt: cachedAt, expiresIn: expiresIn)
    }

    func testLapsedAccountsGoWholeAndOthersStayUntouched() throws {
        var store = TokenStore()
        store.save(record(uid: "old", cachedAt: now - 100 * day))
        store.save(record(uid: "recent", cachedAt: now - 10 * day))
        store.save(record(uid: "serving", cachedAt: now - 100 * day, expiresIn: 101 * day))
        store.save(record(uid: "old", client: CacheFixtures.otherClientId, cachedAt: now - 95 * day))
        let before = CacheDocument.write(store)

        let removed = store.removeLapsedAccounts(now: now, unusedLifetime: lifetime)

        XCTAssertEqual(removed, ["old.\(CacheFixtures.tenant)"])
        let remaining = Set(store.accounts.values.map(\.homeAccountId))
        XCTAssertEqual(remaining, ["recent.\(CacheFixtures.tenant)", "serving.\(CacheFixtures.tenant)"])
        for hid in ["recent", "serving"].map({ "\($0).\(CacheFixtures.tenant)" }) {
            XCTAssertEqual(
                [
                    store.entities(CacheAccessToken.self, of: hid).count,
                    store.entities(CacheRefreshToken.self, of: hid).count,
                    store.entities(CacheIdToken.self, of: hid).count, store.entities(CacheAccount.self, of: hid).count,
                ], [1, 1, 1, 1], "access, refresh and id token and the account record")
            XCTAssertEqual(store.signInState(clientId: CacheFixtures.clientId, homeAccountId: hid), .signedIn)
        }
        let gone = "old.\(CacheFixtures.tenant)"
        XCTAssertFalse(store.homeAccountIds.contains(gone))
        XCTAssertNil(store.accountMetadata(clientId: CacheFixtures.clientId, homeAccountId: gone))
        XCTAssertNil(store.accountMetadata(clientId: CacheFixtures.otherClientId, homeAccountId: gone))
        XCTAssertEqual(store.accessTokens.values.count, 2)
        XCTAssertEqual(store.refreshTokens.values.count, 2)
        XCTAssertEqual(store.idTokens.values.count, 2)
        XCTAssertEqual(store.appMetadata.values.count, 2, "app metadata belongs to the apps, not the account")
        // The indexes stayed true: what remains is found, and a second pass removes nothing.
        XCTAssertEqual(
            store.refreshToken(
                homeAccountId: "recent.\(CacheFixtures.tenant)", environments: [CacheFixtures.environment],
                clientId: CacheFixtures.clientId)?.secret, "rt")
        XCTAssertEqual(store.removeLapsedAccounts(now: now, unusedLifetime: lifetime), [])
        XCTAssertLessThan(CacheDocument.write(store).count, before.count)
    }

    func testWhatTheLibraryDoesNotUnderstandStaysByteForByte() throws {
        let old = String(now - 200 * day)
        let hid = "old.\(CacheFixtures.tenant)"
        let foreign = #"{"credential_type": "PrimaryRefreshToken", "home_account_id": "\#(hid)", "x": [1, 2]}"#
        let document = """
            {"AccessToken": {"\(hid)-localhost-accesstoken-c-t-s": {"credential_type": "AccessToken", "secret": "a",
              "home_account_id": "\(hid)", "environment": "localhost", "client_id": "c", "realm": "t", "target": "s",
              "cached_at": "\(old)", "expires_on": "\(old)", "extended_expires_on": "\(old)"}},
             "RefreshToken": {"\(hid)-localhost-refreshtoken-c--": {"credential_type": "RefreshToken", "secret": "r",
              "home_account_id": "\(hid)", "environment": "localhost", "client_id": "c",
              "last_modification_time": "\(old).125"},
              "odd": {"credential_type": "RefreshToken", "secret": 7, "home_account_id": "\(hid)"}},
             "Account": {"\(hid)-localhost-t": {"home_account_id": "\(hid)", "environment": "localhost", "realm": "t",
              "local_account_id": "o", "username": "u", "authority_type": "MSSTS"}},
             "PrimaryRefreshToken": {"k": \(foreign)}}
            """
        var store = try CacheDocument.read(Array(document.utf8))
        XCTAssertEqual(store.removeLapsedAccounts(now: now, unusedLifetime: lifetime), [hid])
        let written = String(decoding: CacheDocument.write(store), as: UTF8.self)
        XCTAssertTrue(written.contains(foreign), written)
        XCTAssertTrue(written.contains(#""odd": {"credential_type": "RefreshToken", "secret": 7"#), written)
        XCTAssertFalse(written.contains(#""secret": "r""#))
        XCTAssertFalse(written.contains(#""secret": "a""#))
        XCTAssertFalse(written.contains(#""username": "u""#))
    }

    func testAnAccountRemovedForItsOnlyClientGoesWithItsRecords() {
        var store = TokenStore()
        store.save(record(uid: "removed", cachedAt: now - 3600))
        store.save(record(uid: "kept", cachedAt: now - 3600))
        let hid = "removed.\(CacheFixtures.tenant)"
        store.removeAccount(homeAccountId: hid, clientId: CacheFixtures.clientId)
        XCTAssertEqual(store.entities(CacheAccount.self, of: hid).count, 1, "removeAccount keeps the Account record")
        XCTAssertEqual(store.entities(CacheRefreshToken.self, of: hid).count, 0)
        XCTAssertEqual(store.removeLapsedAccounts(now: now, unusedLifetime: lifetime), [hid])
        XCTAssertNil(store.accountMetadata(clientId: CacheFixtures.clientId, homeAccountId: hid))
        XCTAssertEqual(store.accounts.values.map(\.homeAccountId), ["kept.\(CacheFixtures.tenant)"])
    }

    func testARejectedRefreshTokenLeavesTheAccountListedUntilTheLifetimePasses() {
        var store = TokenStore()
        store.save(record(uid: "rejected", cachedAt: now - 3 * day))
        let hid = "rejected.\(CacheFixtures.tenant)"
        XCTAssertTrue(
            store.removeRefreshToken(
                homeAccountId: hid, environment: CacheFixtures.environment, clientId: CacheFixtures.clientId,
                secret: "rt"))
        XCTAssertEqual(store.removeLapsedAccounts(now: now, unusedLifetime: lifetime), [])
        XCTAssertEqual(store.removeLapsedAccounts(now: now + lifetime, unusedLifetime: lifetime), [hid])
    }

    func testAnotherMSALsRefreshTokenWithoutTimesKeepsTheAccount() throws {
        let hid = "net.\(CacheFixtures.tenant)"
        let document = """
            {"RefreshToken": {"\(hid)-localhost-refreshtoken-c--": {"credential_type": "RefreshToken", "secret": "r",
              "home_account_id": "\(hid)", "environment": "localhost", "client_id": "c"}},
             "Account": {"\(hid)-localhost-t": {"home_account_id": "\(hid)", "environment": "localhost", "realm": "t",
              "local_account_id": "o", "username": "u", "authority_type": "MSSTS"}}}
            """
        var store = try CacheDocument.read(Array(document.utf8))
        XCTAssertEqual(store.removeLapsedAccounts(now: now, unusedLifetime: lifetime), [])
        XCTAssertEqual(store.refreshTokens.values.count, 1)
    }

    func testTheRefreshTokenExpiryTheServerGaveIsStoredAndRead() throws {
        var response = record(uid: "spa", cachedAt: now - 2 * day)
        response.refreshTokenExpiresOn = now - day
        var store = TokenStore()
        store.save(response)
        let written = CacheDocument.write(store)
        let text = String(decoding: written, as: UTF8.self)
        XCTAssertTrue(text.contains(#""expires_on":"\#(now - day)""#), text)
        var reread = try CacheDocument.read(written)
        XCTAssertEqual(reread.refreshTokens.values.first?.expiresOn, now - day)
        XCTAssertEqual(reread.removeLapsedAccounts(now: now, unusedLifetime: lifetime), ["spa.\(CacheFixtures.tenant)"])
    }
}
