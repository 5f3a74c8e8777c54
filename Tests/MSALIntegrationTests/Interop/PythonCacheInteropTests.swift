import Foundation
import MSALTestSupport
import XCTest

@testable import MSAL

/// The token cache file, both ways with the real MSAL for Python (`Tests/Interop/msal_interop.py`,
/// `scripts/interop.sh`): a cache MSAL Python serialized is used here, and a cache written here is
/// used by MSAL Python, with silent calls served from the cache without a token request.
final class PythonCacheInteropTests: XCTestCase {
    private var emulator: EntraEmulator!
    private var folder: URL!
    private var cacheFile: URL { folder.appendingPathComponent("msal_cache.json") }

    private static let contoso = EmulatorTenant.contoso.id
    private static let fabrikam = EmulatorTenant.fabrikam.id
    private static let consumers = EmulatorTenant.microsoftAccountsTenantId
    private static let cloud = "https://login.microsoftonline.com"
    private static let b2cTenant = EmulatorTenant.contosoB2C.domains[0]
    private static let b2cPolicy = "B2C_1_signupsignin"
    private static let b2cScope = "https://contosob2c.onmicrosoft.com/api/read"

    override func setUpWithError() throws {
        emulator = try EmulatedApp.makeEmulator()
        emulator.deviceCodeInterval = 0
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("msal-interop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    override func tearDown() {
        emulator.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    // MARK: MSAL Python writes, we read

    func testCacheWrittenByMSALPythonIsUsedHere() async throws {
        let python = try MSALPython.require()
        let written = try python.run(["write", "--cache", cacheFile.path])
        let signIns = try Dictionary(
            uniqueKeysWithValues: XCTUnwrap(written["sign_ins"] as? [[String: Any]]).map {
                ($0["name"] as? String ?? "", $0)
            })
        func homeAccountId(_ name: String) throws -> String {
            try XCTUnwrap(signIns[name]?["home_account_id"] as? String)
        }
        let document = try Self.document(cacheFile)

        // The sample app sees the work account (two tenant profiles: home and guest), the
        // personal account and the B2C account; Bob's refresh token belongs to a family app.
        let app = try application(clientId: EmulatorClient.sample.clientId)
        let accounts = try app.application.allAccounts()
        XCTAssertEqual(
            Set(accounts.compactMap(\.username)),
            ["alice@contoso.onmicrosoft.com", "carol@outlook.com", "dave@example.com"])
        let alice = try XCTUnwrap(try app.application.account(forUsername: "ALICE@contoso.onmicrosoft.com"))
        XCTAssertEqual(alice.identifier, try homeAccountId("work"))
        XCTAssertEqual(alice.identifier, try homeAccountId("guest"))
        XCTAssertEqual(alice.environment, "login.microsoftonline.com")
        XCTAssertEqual(alice.homeAccountId?.objectId, EmulatorUser.alice.objectId)
        XCTAssertEqual(alice.homeAccountId?.tenantId, Self.contoso)
        let profiles = Dictionary(
            uniqueKeysWithValues: (alice.tenantProfiles ?? []).map { ($0.tenantId ?? "", $0) })
        XCTAssertEqual(Set(profiles.keys), [Self.contoso, Self.fabrikam])
        XCTAssertEqual(profiles[Self.contoso]?.isHomeTenantProfile, true)
        XCTAssertEqual(profiles[Self.fabrikam]?.isHomeTenantProfile, false)
        XCTAssertEqual(profiles[Self.fabrikam]?.identifier, "7f6e5d4c-3b2a-4190-8f7e-6d5c4b3a2910")
        XCTAssertEqual(alice.accountClaims?["tid"] as? String, Self.contoso)
        XCTAssertEqual(alice.accountClaims?["name"] as? String, "Alice Smith")

        let carol = try XCTUnwrap(try app.application.account(forIdentifier: homeAccountId("personal")))
        XCTAssertEqual(carol.username, "carol@outlook.com")
        XCTAssertEqual(carol.homeAccountId?.tenantId, Self.consumers)

        let dave = try XCTUnwrap(try app.application.account(forIdentifier: homeAccountId("b2c")))
        XCTAssertEqual(dave.username, "dave@example.com")
        XCTAssertEqual(dave.environment, "contosob2c.b2clogin.com")
        XCTAssertEqual(dave.homeAccountId?.objectId, "\(EmulatorUser.dave.objectId)-b2c_1_signupsignin")
        XCTAssertEqual(dave.homeAccountId?.tenantId, EmulatorTenant.contosoB2C.id)

        // Silent calls return MSAL Python's access tokens: home tenant, guest tenant, personal
        // account, and the family app's own token; no token request.
        let home = try await app.application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: ["User.Read"], account: alice))
        XCTAssertEqual(home.accessToken, try Self.accessToken(document, homeAccountId("work"), realm: Self.contoso))
        XCTAssertEqual(home.tenantProfile.tenantId, Self.contoso)
        let guestParameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: alice)
        guestParameters.authority = try Self.authority(Self.fabrikam)
        let guest = try await app.application.acquireTokenSilent(with: guestParameters)
        XCTAssertEqual(guest.accessToken, try Self.accessToken(document, homeAccountId("guest"), realm: Self.fabrikam))
        XCTAssertEqual(guest.tenantProfile.tenantId, Self.fabrikam)
        let personal = try await app.application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: ["User.Read"], account: carol))
        XCTAssertEqual(
            personal.accessToken, try Self.accessToken(document, homeAccountId("personal"), realm: Self.consumers))

        let familyOne = try application(clientId: EmulatorClient.familyAppOne.clientId)
        let bob = try XCTUnwrap(try familyOne.application.account(forIdentifier: homeAccountId("family")))
        XCTAssertEqual(bob.username, "bob@contoso.onmicrosoft.com")
        let bobToken = try await familyOne.application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: ["User.Read"], account: bob))
        XCTAssertEqual(
            bobToken.accessToken, try Self.accessToken(document, homeAccountId("family"), realm: Self.contoso))
        XCTAssertEqual(emulator.requestCount(.token), 0, "every silent call was a cache hit")

        // FOCI: another family app sees Bob through MSAL Python's family refresh token.
        let familyTwo = try application(clientId: EmulatorClient.familyAppTwo.clientId)
        XCTAssertEqual(try familyTwo.application.allAccounts().compactMap(\.username), ["bob@contoso.onmicrosoft.com"])

        // Our rewrite (signing Carol out of the sample app) keeps what we do not model: MSAL
        // Python's `account_source`, the unknown field and the unknown section the script added.
        try app.application.remove(carol)
        let rewritten = try Self.document(cacheFile)
        XCTAssertNotNil(rewritten["AccountMetadata"], "the file was rewritten")
        XCTAssertEqual(
            rewritten["FutureSection"] as? [String: [String: String]],
            document["FutureSection"] as? [String: [String: String]])
        XCTAssertNotNil(document["FutureSection"])
        let rewrittenAccounts = try XCTUnwrap(rewritten["Account"] as? [String: [String: Any]])
        XCTAssertEqual(rewrittenAccounts.count, 5)
        XCTAssertTrue(rewrittenAccounts.values.allSatisfy { $0["account_source"] as? String == "authorization_code" })
        // MSAL Python keyed Alice's two refresh tokens (same app, two scope sets) apart by target;
        // they mean the same grant, and we keep one (the newer).
        let refreshTokens = try XCTUnwrap(rewritten["RefreshToken"] as? [String: [String: Any]])
        XCTAssertEqual(try XCTUnwrap(document["RefreshToken"] as? [String: Any]).count, 5)
        XCTAssertEqual(
            refreshTokens.values.compactMap { $0["home_account_id"] as? String }.sorted(),
            try [homeAccountId("work"), homeAccountId("b2c"), homeAccountId("family")].sorted(),
            "Carol's refresh token is gone, one of Alice's two is kept")
        XCTAssertEqual(refreshTokens.values.compactMap { $0["future_field"] as? String }.count, 3)
        XCTAssertEqual(
            Set(refreshTokens.keys).subtracting(try XCTUnwrap(document["RefreshToken"] as? [String: Any]).keys), [],
            "entities keep MSAL Python's keys")

        // ... and MSAL Python still serves the same access tokens from the rewritten file; for
        // Carol it finds the account but no token (signed out here), and asks no server.
        let plan: [[String: Any]] = [
            check(
                "alice-home", EmulatorClient.sample.clientId, Self.contoso, "alice@contoso.onmicrosoft.com",
                expected: home.accessToken),
            check(
                "alice-guest", EmulatorClient.sample.clientId, Self.fabrikam, "alice@contoso.onmicrosoft.com",
                expected: guest.accessToken),
            check(
                "bob-family", EmulatorClient.familyAppOne.clientId, Self.contoso, "bob@contoso.onmicrosoft.com",
                expected: bobToken.accessToken),
            check(
                "carol-signed-out", EmulatorClient.sample.clientId, Self.consumers, "carol@outlook.com", expected: nil),
        ]
        let read = try readWithPython(python, plan)
        let checks = try Self.checks(read)
        for name in ["alice-home", "alice-guest", "bob-family"] {
            XCTAssertEqual(checks[name]?["token_source"] as? String, "cache", name)
            XCTAssertEqual(checks[name]?["access_token_matches"] as? Bool, true, name)
        }
        XCTAssertEqual(checks["carol-signed-out"]?["found_account"] as? Bool, true)
        XCTAssertNil(checks["carol-signed-out"]?["token_source"] as? String)
        XCTAssertEqual(read["token_requests"] as? [String], [])
        XCTAssertEqual(emulator.requestCount(.token), 0)

        // The second family app redeems MSAL Python's family refresh token (made up by the script,
        // so the emulator refuses it; what matters is which one is sent).
        let pythonRefreshTokens = try XCTUnwrap(document["RefreshToken"] as? [String: [String: Any]]).values
        func pythonRefreshToken(_ homeAccountId: String) -> String? {
            pythonRefreshTokens.first { $0["home_account_id"] as? String == homeAccountId }?["secret"] as? String
        }
        let familyBob = try XCTUnwrap(try familyTwo.application.allAccounts().first)
        _ = try? await familyTwo.application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: ["User.Read"], account: familyBob))
        let familyRefresh = try XCTUnwrap(emulator.recentRequests(to: .token).last)
        XCTAssertEqual(familyRefresh.formValue("client_id"), EmulatorClient.familyAppTwo.clientId)
        XCTAssertEqual(familyRefresh.formValue("refresh_token"), pythonRefreshToken(try homeAccountId("family")))

        // B2C: MSAL Python caches the access token under the tenant named in the authority's path
        // (its realm), we under the tenant id; the silent flow looks in both, so MSAL Python's
        // token is a cache hit here too.
        let pythonAccessTokens = try XCTUnwrap(document["AccessToken"] as? [String: [String: Any]]).values
        let b2cURL = emulator.authority(.b2cLogin(tenant: Self.b2cTenant, policy: Self.b2cPolicy))
        let b2c = try application(clientId: EmulatorClient.sample.clientId, authority: b2cURL) { config in
            config.knownAuthorities = [try MSALB2CAuthority(url: b2cURL)]
        }
        let b2cDave = try XCTUnwrap(try b2c.application.account(forIdentifier: homeAccountId("b2c")))
        let requestsBefore = emulator.requestCount(.token)
        let b2cResult = try await b2c.application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: [Self.b2cScope], account: b2cDave))
        let pythonB2CToken =
            try pythonAccessTokens.first {
                $0["home_account_id"] as? String == (try homeAccountId("b2c"))
            }?["secret"] as? String
        XCTAssertEqual(b2cResult.accessToken, pythonB2CToken)
        XCTAssertEqual(emulator.requestCount(.token), requestsBefore)
    }

    // MARK: We write, MSAL Python reads

    func testCacheWrittenHereIsUsedByMSALPython() async throws {
        let python = try MSALPython.require()
        let emulator = emulator!
        // The sample app: Alice interactively (home tenant, then as a guest in Fabrikam), Bob
        // with a device code; Carol (personal account) through /consumers; Dave through a B2C
        // policy; Alice again in a family (FOCI) app. All in one cache file.
        let sample = try application(clientId: EmulatorClient.sample.clientId)
        let alice = try await sample.signIn(["User.Read"])
        let guest = try await sample.signIn(["User.Read"]) {
            $0.authority = try? Self.authority(Self.fabrikam)
            $0.account = alice.account
        }
        let bob = try await sample.application.acquireTokenWithDeviceCode(
            parameters: MSALTokenParameters(scopes: ["User.Read", "Mail.Read"])
        ) { info in
            try? emulator.approveDeviceCode(userCode: info.userCode, as: EmulatorUser.bob.username)
        }
        let consumers = try application(
            clientId: EmulatorClient.sample.clientId, authority: XCTUnwrap(URL(string: "\(Self.cloud)/consumers")))
        let carol = try await consumers.signIn(["User.Read"]) { $0.loginHint = EmulatorUser.carol.username }
        let b2cURL = emulator.authority(.b2cLogin(tenant: Self.b2cTenant, policy: Self.b2cPolicy))
        let b2c = try application(clientId: EmulatorClient.sample.clientId, authority: b2cURL) { config in
            config.knownAuthorities = [try MSALB2CAuthority(url: b2cURL)]
        }
        let dave = try await b2c.signIn([Self.b2cScope]) { $0.loginHint = EmulatorUser.dave.username }
        let family = try application(clientId: EmulatorClient.familyAppOne.clientId)
        let familyAlice = try await family.signIn(["User.Read"]) { $0.loginHint = EmulatorUser.alice.username }
        XCTAssertEqual(familyAlice.account.identifier, alice.account.identifier)
        emulator.resetCounters()

        let sampleId = EmulatorClient.sample.clientId
        let read = try readWithPython(
            python,
            [
                check("alice-home", sampleId, Self.contoso, EmulatorUser.alice.username, expected: alice.accessToken),
                check("alice-guest", sampleId, Self.fabrikam, EmulatorUser.alice.username, expected: guest.accessToken),
                check(
                    "bob", sampleId, Self.contoso, EmulatorUser.bob.username, expected: bob.accessToken,
                    scopes: ["Mail.Read"]),
                check("carol", sampleId, Self.consumers, EmulatorUser.carol.username, expected: carol.accessToken),
                check(
                    "dave-b2c", sampleId, "", EmulatorUser.dave.username, expected: dave.accessToken,
                    scopes: [Self.b2cScope], authority: b2cURL.absoluteString),
                // FOCI: another family app redeems our family refresh token.
                check(
                    "alice-family-two", EmulatorClient.familyAppTwo.clientId, Self.contoso,
                    EmulatorUser.alice.username, expected: nil),
            ])
        let checks = try Self.checks(read)
        for name in ["alice-home", "alice-guest", "bob", "carol"] {
            XCTAssertEqual(checks[name]?["token_source"] as? String, "cache", name)
            XCTAssertEqual(checks[name]?["access_token_matches"] as? Bool, true, name)
            XCTAssertEqual(checks[name]?["token_requests"] as? [String], [], name)
        }
        XCTAssertEqual(checks["alice-home"]?["home_account_id"] as? String, alice.account.identifier)
        XCTAssertEqual(checks["bob"]?["home_account_id"] as? String, bob.account.identifier)
        XCTAssertEqual(checks["carol"]?["home_account_id"] as? String, carol.account.identifier)

        // The same accounts, usernames and home account ids as ours.
        let accounts = try XCTUnwrap(read["accounts"] as? [String: [[String: Any]]])
        let ours = try sample.application.allAccounts().filter { $0.environment == "login.windows.net" }
        XCTAssertEqual(ours.count, 3)
        for tenant in [Self.contoso, Self.fabrikam, Self.consumers] {
            let theirs = try XCTUnwrap(accounts["\(sampleId) \(Self.cloud)/\(tenant)"])
            XCTAssertEqual(
                Set(theirs.map { "\($0["home_account_id"] ?? "") \($0["username"] ?? "")" }),
                Set(ours.map { "\($0.identifier ?? "") \($0.username ?? "")" }), tenant)
        }
        let theirB2C = try XCTUnwrap(accounts["\(sampleId) \(b2cURL.absoluteString)"])
        XCTAssertEqual(theirB2C.map { $0["home_account_id"] as? String }, [dave.account.identifier])
        XCTAssertEqual(theirB2C.map { $0["username"] as? String }, [EmulatorUser.dave.username])

        // B2C: MSAL Python looks access tokens up under the realm in its token endpoint's path
        // (the tenant's domain) and we cache them under the tenant id, as MSAL.NET and MSAL for
        // iOS/macOS do; so it redeems our refresh token instead, successfully.
        XCTAssertEqual(checks["dave-b2c"]?["home_account_id"] as? String, dave.account.identifier)
        XCTAssertEqual(checks["dave-b2c"]?["token_source"] as? String, "identity_provider")
        XCTAssertEqual(checks["dave-b2c"]?["token_requests"] as? [String], ["refresh_token"])
        // FOCI: the second family app, with no token of its own, redeems our family refresh token.
        XCTAssertEqual(checks["alice-family-two"]?["token_source"] as? String, "identity_provider")
        XCTAssertEqual(checks["alice-family-two"]?["token_requests"] as? [String], ["refresh_token"])
        let document = try Self.document(cacheFile)
        let familyToken = try XCTUnwrap(
            try XCTUnwrap(document["RefreshToken"] as? [String: [String: Any]]).values.first {
                $0["family_id"] as? String == "1" && $0["home_account_id"] as? String == alice.account.identifier
            }?["secret"] as? String)
        let redeemed = try XCTUnwrap(emulator.recentRequests(to: .token).last)
        XCTAssertEqual(redeemed.formValue("client_id"), EmulatorClient.familyAppTwo.clientId)
        XCTAssertEqual(redeemed.formValue("refresh_token"), familyToken)
        XCTAssertEqual(emulator.requestCount(.token), 2, "only the B2C and the family-app refreshes")
        XCTAssertEqual(read["token_requests"] as? [String], ["refresh_token", "refresh_token"])
    }

    // MARK: Helpers

    /// An application on the real cloud host (routed to the emulator) using `cacheFile`.
    private func application(
        clientId: String, authority: URL = URL(string: "\(cloud)/common")!,
        configure: (MSALPublicClientApplicationConfig) throws -> Void = { _ in }
    ) throws -> EmulatedApp {
        let file = cacheFile
        return try EmulatedApp(emulator: emulator, clientId: clientId, authority: authority) { config in
            config.cacheConfig.inMemoryOnly = false
            config.cacheConfig.cacheFileURL = file
            try configure(config)
        }
    }

    /// A check of `msal_interop.py read`: silent for `username` with `clientId` on `tenant`.
    private func check(
        _ name: String, _ clientId: String, _ tenant: String, _ username: String, expected: String?,
        scopes: [String] = ["User.Read"], authority: String? = nil
    ) -> [String: Any] {
        var check: [String: Any] = [
            "name": name, "client_id": clientId, "authority": authority ?? "\(Self.cloud)/\(tenant)",
            "username": username, "scopes": scopes,
        ]
        if let expected { check["expected_access_token"] = expected }
        return check
    }

    /// Runs `msal_interop.py read` on `cacheFile` with the plan (in the test's 0700 folder: it holds tokens).
    private func readWithPython(_ python: MSALPython, _ checks: [[String: Any]]) throws -> [String: Any] {
        let plan = folder.appendingPathComponent("plan.json")
        try JSONSerialization.data(withJSONObject: ["checks": checks]).write(to: plan)
        let ca = emulator.certificateAuthority.certificateFile
        return try python.run(
            ["read", "--cache", cacheFile.path, "--plan", plan.path, "--ca-file", ca]
                + emulator.connectTo.flatMap { ["--connect-to", $0] },
            environment: ["REQUESTS_CA_BUNDLE": ca])
    }

    private static func checks(_ read: [String: Any]) throws -> [String: [String: Any]] {
        let list = try XCTUnwrap(read["checks"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: list.map { ($0["name"] as? String ?? "", $0) })
    }

    private static func authority(_ tenant: String) throws -> MSALAuthority {
        try MSALAuthority.authority(with: XCTUnwrap(URL(string: "\(cloud)/\(tenant)")))
    }

    private static func document(_ file: URL) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
    }

    /// The secret of the one access token of `homeAccountId` in `realm`.
    private static func accessToken(_ document: [String: Any], _ homeAccountId: String, realm: String) throws -> String
    {
        let tokens = try XCTUnwrap(document["AccessToken"] as? [String: [String: Any]]).values.filter {
            $0["home_account_id"] as? String == homeAccountId && $0["realm"] as? String == realm
        }
        XCTAssertEqual(tokens.count, 1)
        return try XCTUnwrap(tokens.first?["secret"] as? String)
    }
}
