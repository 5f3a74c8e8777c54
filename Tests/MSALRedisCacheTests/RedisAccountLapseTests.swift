import Foundation
import MSALNative
import MSALRedisCache
import MSALRedisCacheNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// A shared cache stays bounded while it is in use: the accounts nothing can be acquired for any
/// more leave it with the next change any machine saves, and the others stay. The emulator's
/// clock and the applications' clocks move together over months.
final class RedisAccountLapseTests: XCTestCase {
    private static let day: TimeInterval = 86_400

    /// A machine: its own application, storage and connection to the shared Redis.
    private static func machine(
        _ server: RedisServer, _ emulator: EntraEmulator, offset: Locked<Double>, name: String = "lapse",
        unusedAccountLifetime: TimeInterval = 90 * 86_400
    ) throws -> MSALPublicClientApplication {
        let config = MSALPublicClientApplicationConfig(
            clientId: EmulatorClient.sample.clientId, redirectUri: nil,
            authority: try MSALAuthority.authority(with: URL(string: "https://login.microsoftonline.com/common")!))
        config.certificateAuthorityFile = emulator.certificateAuthority.certificateFile
        config.connectTo = emulator.connectTo
        config.cacheConfig.customStorage = try MSALRedisCacheStorage(
            connection: MSALRedisConnectionConfig(host: "127.0.0.1", port: server.port), cacheName: name,
            unusedAccountLifetime: unusedAccountLifetime)
        return try MSALPublicClientApplication(
            configuration: config, now: { Date().addingTimeInterval(offset.withLock { $0 }) })
    }

    private func signIn(_ user: EmulatorUser, on application: MSALPublicClientApplication, _ emulator: EntraEmulator)
        async throws -> MSALAccount
    {
        let webview = MSALWebviewParameters()
        webview.customWebview = emulator.scriptedBrowser()
        let parameters = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview)
        parameters.loginHint = user.username
        return try await application.acquireToken(with: parameters).account
    }

    private func silent(_ account: MSALAccount, on application: MSALPublicClientApplication) async throws {
        _ = try await application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
    }

    /// Moves the emulator's clock and the applications' clocks forward together.
    private func advance(days: Double, _ emulator: EntraEmulator, _ offset: Locked<Double>) {
        emulator.advanceClock(by: days * Self.day)
        offset.withLock { $0 += days * Self.day }
    }

    /// The refresh token the shared cache holds for `username`, read from Redis as another
    /// program would.
    private func storedRefreshToken(_ server: RedisServer, name: String = "lapse", username: String) throws
        -> CacheRefreshToken?
    {
        let storage = try MSALRedisCacheStorage(
            connection: MSALRedisConnectionConfig(host: "127.0.0.1", port: server.port), cacheName: name)
        guard let data = try storage.load() else { return nil }
        let store = try CacheDocument.read([UInt8](data))
        guard let account = store.accounts.values.first(where: { $0.username == username }) else { return nil }
        return store.refreshTokens.values.first { $0.homeAccountId == account.homeAccountId }
    }

    private func storedDocument(_ server: RedisServer, name: String = "lapse") throws -> String {
        let storage = try MSALRedisCacheStorage(
            connection: MSALRedisConnectionConfig(host: "127.0.0.1", port: server.port), cacheName: name)
        return String(decoding: try storage.load() ?? Data(), as: UTF8.self)
    }

    func testAnAccountNobodyUsedForNinetyDaysLeavesWithTheNextChangeOfAnyMachine() async throws {
        let server = try RedisServer()
        let emulator = try EntraEmulator(configuration: EntraEmulator.Configuration())
        defer { emulator.stop() }
        let offset = Locked(0.0)
        let first = try Self.machine(server, emulator, offset: offset)
        let second = try Self.machine(server, emulator, offset: offset)
        let alice = try await signIn(.alice, on: first, emulator)
        let bob = try await signIn(.bob, on: first, emulator)
        let aliceToken = try XCTUnwrap(try storedRefreshToken(server, username: EmulatorUser.alice.username))

        advance(days: 60, emulator, offset)
        try await silent(bob, on: second)  // a refresh: bob's access token expired long ago
        XCTAssertEqual(Set(try first.allAccounts().map(\.username)), [alice.username, bob.username])

        advance(days: 40, emulator, offset)
        // Day 100: nothing was acquired for alice for 100 days, and her refresh token is dead at
        // the provider too. Bob's refresh (another machine) is the change that removes her.
        XCTAssertFalse(emulator.isRefreshTokenValid(aliceToken.secret), "only a dead token may go")
        try await silent(bob, on: second)
        XCTAssertEqual(try first.allAccounts().map(\.username), [bob.username])
        let document = try storedDocument(server)
        XCTAssertFalse(document.contains(EmulatorUser.alice.username), document)
        XCTAssertFalse(document.contains(aliceToken.secret))
        XCTAssertTrue(document.contains(EmulatorUser.bob.username))
        do {
            try await silent(alice, on: first)
            XCTFail("alice's account is gone: a silent call must ask for interaction")
        } catch {
            XCTAssertEqual(MSALErrorInfo(error).code, MSALError.interactionRequired.rawValue)
        }
        try await silent(bob, on: first)
    }

    func testAccountsStayWhileTheyAreUsedOrServeAnAccessToken() async throws {
        let server = try RedisServer()
        let emulator = try EntraEmulator(configuration: EntraEmulator.Configuration())
        defer { emulator.stop() }
        var lifetimes = emulator.lifetimes
        lifetimes.accessToken = Int(120.5 * Self.day)  // alice's access token outlives the 90 days
        emulator.lifetimes = lifetimes
        let offset = Locked(0.0)
        let machine = try Self.machine(server, emulator, offset: offset)
        _ = try await signIn(.alice, on: machine, emulator)
        lifetimes.accessToken = 3599
        emulator.lifetimes = lifetimes
        let bob = try await signIn(.bob, on: machine, emulator)
        for _ in 0..<4 {
            advance(days: 30, emulator, offset)
            try await silent(bob, on: machine)
        }
        // Day 120: alice unused for 120 days, but her access token was still servable at every
        // change; bob was used every 30 days.
        XCTAssertEqual(try machine.allAccounts().count, 2)
        advance(days: 1, emulator, offset)
        try await silent(bob, on: machine)
        XCTAssertEqual(try machine.allAccounts().map(\.username), [bob.username])
    }

    func testARefreshTokenPastTheExpiryItsProviderStatedLeavesWithItsAccount() async throws {
        let server = try RedisServer()
        let emulator = try EntraEmulator(configuration: EntraEmulator.Configuration())
        defer { emulator.stop() }
        var lifetimes = emulator.lifetimes
        lifetimes.refreshToken = Int(30 * Self.day)
        lifetimes.statesRefreshTokenExpiry = true
        emulator.lifetimes = lifetimes
        let offset = Locked(0.0)
        let machine = try Self.machine(server, emulator, offset: offset)
        let alice = try await signIn(.alice, on: machine, emulator)
        let bob = try await signIn(.bob, on: machine, emulator)
        let stated = try XCTUnwrap(try storedRefreshToken(server, username: EmulatorUser.alice.username)?.expiresOn)
        XCTAssertEqual(Double(stated), emulator.now.timeIntervalSince1970 + 30 * Self.day, accuracy: 2)

        advance(days: 20, emulator, offset)
        try await silent(bob, on: machine)
        advance(days: 15, emulator, offset)
        // Day 35: alice's refresh token expired on day 30 (the provider said so); bob's, renewed
        // on day 20, lasts until day 50. 35 days is far from the 90-day unused lifetime.
        try await silent(bob, on: machine)
        XCTAssertEqual(try machine.allAccounts().map(\.username), [bob.username])
        XCTAssertNotNil(try storedRefreshToken(server, username: EmulatorUser.bob.username))
        do {
            try await silent(alice, on: machine)
            XCTFail("alice must sign in again")
        } catch {
            XCTAssertEqual(MSALErrorInfo(error).code, MSALError.interactionRequired.rawValue)
        }
    }

    /// A year of a fleet whose users come and go: a new user every other day, each using it for
    /// ten days. With the unused lifetime the document stops growing once the first users lapse;
    /// without it, it keeps every user who ever came.
    func testAFleetWhoseUsersComeAndGoKeepsItsCacheBounded() throws {
        let server = try RedisServer()
        let start: Int64 = 1_800_000_000
        func run(name: String, days: Int, unusedAccountLifetime: TimeInterval) throws -> [Int: (
            accounts: Int, bytes: Int
        )] {
            let clock = Locked(start)
            let storage = try MSALRedisCacheStorage(
                connection: MSALRedisConnectionConfig(host: "127.0.0.1", port: server.port), cacheName: name,
                unusedAccountLifetime: unusedAccountLifetime)
            let cache = TokenCache(
                settings: CacheSettings(location: .custom(storage)),
                now: { Date(timeIntervalSince1970: TimeInterval(clock.withLock { $0 })) })
            var sizes: [Int: (accounts: Int, bytes: Int)] = [:]
            for day in stride(from: 0, to: days, by: 2) {
                let now = start + Int64(day) * 86_400
                clock.withLock { $0 = now }
                // Today's new user signs in; the users of the last ten days refresh.
                for user in stride(from: max(0, day - 8), through: day, by: 2) {
                    try cache.modifyBlocking { $0.save(Self.record(uid: "user\(user)", at: now)) }
                }
                if day % 120 == 0 || day == days - 2 {
                    let accounts = try cache.readBlocking { $0.accounts.values.count }
                    sizes[day] = (accounts, try storage.load()?.count ?? 0)
                }
            }
            return sizes
        }
        let bounded = try run(name: "bounded", days: 366, unusedAccountLifetime: 90 * 86_400)
        let unbounded = try run(name: "unbounded", days: 200, unusedAccountLifetime: 0)
        // A user last used on day u + 8 lapses on day u + 98: the last 49 users stay.
        for day in [120, 240, 364] {
            XCTAssertEqual(bounded[day]?.accounts, 49, "day \(day)")
        }
        XCTAssertEqual(unbounded[198]?.accounts, 100, "every user who ever came")
        let yearEnd = Double(try XCTUnwrap(bounded[364]?.bytes))
        XCTAssertEqual(Double(try XCTUnwrap(bounded[120]?.bytes)), yearEnd, accuracy: 0.05 * yearEnd)
        let shown = bounded.sorted { $0.key < $1.key }.map {
            "day \($0.key): \($0.value.accounts) accounts, \($0.value.bytes) B"
        }
        print(
            "lapse: with a 90-day unused lifetime \(shown); without, day 198: "
                + "\(unbounded[198].map { "\($0.accounts) accounts, \($0.bytes) B" } ?? "-")")
    }

    private static func record(uid: String, at now: Int64) -> TokenResponseRecord {
        let tenant = "5c1b3e8a-0000-4000-8000-000000000001"
        var record = TokenResponseRecord(
            clientId: EmulatorClient.sample.clientId, environment: "login.microsoftonline.com", realm: tenant,
            homeAccountId: "\(uid).\(tenant)", localAccountId: uid, username: "\(uid)@contoso.com")
        record.accessToken = "at-\(uid)-\(now)"
        record.scopes = ["User.Read"]
        record.cachedAt = now
        record.expiresOn = now + 3600
        record.idToken = "idtoken-\(uid)"
        record.refreshToken = "rt-\(uid)-\(now)"
        return record
    }
}
