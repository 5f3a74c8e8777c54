import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// Device code, refresh-token import, sign-out, B2C, multi-tenant and personal accounts over the
/// emulator, through the public API.
final class OtherFlowsTests: XCTestCase {
    private var emulator: EntraEmulator!

    override func setUpWithError() throws {
        emulator = try EmulatedApp.makeEmulator()
        emulator.deviceCodeInterval = 0
    }

    override func tearDown() {
        emulator.stop()
    }

    func testDeviceCodeSignsInOnceTheUserApproves() async throws {
        let app = try EmulatedApp(emulator: emulator)
        let emulator = emulator!
        let seen = Locked<MSALDeviceCodeInfo?>(nil)
        let result = try await app.application.acquireTokenWithDeviceCode(
            parameters: MSALTokenParameters(scopes: ["User.Read"])
        ) { info in
            seen.withLock { $0 = info }
            try? emulator.approveDeviceCode(userCode: info.userCode, as: EmulatorUser.bob.username)
        }
        XCTAssertEqual(result.account.username, EmulatorUser.bob.username)
        let info = try XCTUnwrap(seen.withLock { $0 })
        XCTAssertTrue(info.message.contains(info.userCode))
        XCTAssertGreaterThan(emulator.tokenRequestCount(grantType: .deviceCode), 0)
        XCTAssertEqual(try app.application.allAccounts().map(\.username), [EmulatorUser.bob.username])
    }

    func testDeclinedDeviceCodeIsACancel() async throws {
        let app = try EmulatedApp(emulator: emulator)
        let emulator = emulator!
        await assertFailure(code: MSALError.userCanceled.rawValue) {
            _ = try await app.application.acquireTokenWithDeviceCode(
                parameters: MSALTokenParameters(scopes: ["User.Read"])
            ) { info in
                try? emulator.declineDeviceCode(userCode: info.userCode)
            }
        }
    }

    func testCancellingTheTaskStopsDeviceCodePolling() async throws {
        emulator.deviceCodeInterval = 1
        let app = try EmulatedApp(emulator: emulator)
        let task = Task {
            try await app.application.acquireTokenWithDeviceCode(
                parameters: MSALTokenParameters(scopes: ["User.Read"])
            ) { _ in }
        }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        await assertFailure(code: MSALError.userCanceled.rawValue) { _ = try await task.value }
    }

    func testImportedRefreshTokenCreatesTheAccount() async throws {
        let source = try EmulatedApp(emulator: emulator)
        let signedIn = try await source.signIn()
        let homeAccountId = try XCTUnwrap(signedIn.account.identifier)
        let cachedRefreshToken = try await source.application.context.cache.read { store in
            store.refreshToken(
                homeAccountId: homeAccountId, environments: ["login.windows.net", "login.microsoftonline.com"],
                clientId: EmulatorClient.sample.clientId)
        }?.secret
        let refreshToken = try XCTUnwrap(cachedRefreshToken)

        let target = try EmulatedApp(emulator: emulator)
        XCTAssertEqual(try target.application.allAccounts().count, 0)
        let imported = try await target.application.acquireToken(byRefreshToken: refreshToken, scopes: ["User.Read"])
        XCTAssertEqual(imported.account.identifier, homeAccountId)
        let silent = try await target.application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: ["User.Read"], account: imported.account))
        XCTAssertEqual(silent.accessToken, imported.accessToken)
    }

    func testSignoutRemovesAndWipes() async throws {
        let app = try EmulatedApp(emulator: emulator)
        let first = try await app.signIn()
        try await app.application.signout(with: first.account, signoutParameters: MSALSignoutParameters())
        XCTAssertEqual(try app.application.allAccounts().count, 0)

        _ = try await app.signIn { $0.account = first.account }
        let wipe = MSALSignoutParameters()
        wipe.wipeCacheForAllAccounts = true
        try await app.application.signout(with: first.account, signoutParameters: wipe)
        let everything = MSALAccountEnumerationParameters(identifier: nil, username: nil)
        everything.returnOnlySignedInAccounts = false
        XCTAssertEqual(try app.application.accounts(for: everything).count, 0)
    }

    func testSignoutFromTheBrowserEndsTheSession() async throws {
        let app = try EmulatedApp(emulator: emulator)
        let first = try await app.signIn()
        let webview = MSALWebviewParameters()
        webview.customWebview = app.browser
        let parameters = MSALSignoutParameters(webviewParameters: webview)
        parameters.signoutFromBrowser = true
        try await app.application.signout(with: first.account, signoutParameters: parameters)
        XCTAssertEqual(emulator.requestCount(.logout), 1)
    }

    func testB2CPolicySignInAndAccountsByPolicy() async throws {
        let tenant = EmulatorTenant.contosoB2C.domains[0]
        let signInURL = emulator.authority(.b2cLogin(tenant: tenant, policy: "B2C_1_signupsignin"))
        let editURL = emulator.authority(.b2cLogin(tenant: tenant, policy: "B2C_1_editprofile"))
        let signInAuthority = try MSALB2CAuthority(url: signInURL)
        let editAuthority = try MSALB2CAuthority(url: editURL)
        let app = try EmulatedApp(emulator: emulator, authority: signInURL) { config in
            config.knownAuthorities = [signInAuthority, editAuthority]
        }
        emulator.defaultUsername = EmulatorUser.dave.username
        let result = try await app.signIn(["https://contosob2c.onmicrosoft.com/api/read"]) {
            $0.promptType = .selectAccount
        }
        let objectId = try XCTUnwrap(result.account.homeAccountId?.objectId)
        XCTAssertTrue(objectId.hasSuffix("b2c_1_signupsignin"), objectId)
        XCTAssertEqual(result.account.homeAccountId?.tenantId, EmulatorTenant.contosoB2C.id)

        let silent = MSALSilentTokenParameters(
            scopes: ["https://contosob2c.onmicrosoft.com/api/read"], account: result.account)
        silent.authority = signInAuthority
        let cached = try await app.application.acquireTokenSilent(with: silent)
        XCTAssertEqual(cached.accessToken, result.accessToken)

        let edited = try await app.signIn(["https://contosob2c.onmicrosoft.com/api/read"]) {
            $0.authority = editAuthority
        }
        XCTAssertTrue(edited.account.homeAccountId?.objectId?.hasSuffix("b2c_1_editprofile") ?? false)
        XCTAssertEqual(try app.application.allAccounts().count, 2, "one account per policy")
    }

    func testUnknownB2CHostIsRejected() async throws {
        let url = emulator.authority(.b2cLogin(tenant: EmulatorTenant.contosoB2C.domains[0], policy: "B2C_1_x"))
        let app = try EmulatedApp(emulator: emulator, authority: url)
        await assertFailure(code: MSALError.internal.rawValue, internalCode: -42010) {
            _ = try await app.signIn()
        }
    }

    func testGuestAccountHasOneProfilePerTenant() async throws {
        let app = try EmulatedApp(emulator: emulator)
        let home = try await app.signIn()
        let fabrikam = try MSALAuthority.authority(
            with: XCTUnwrap(URL(string: "https://login.microsoftonline.com/\(EmulatorTenant.fabrikam.id)")))
        let guest = try await app.signIn { $0.authority = fabrikam }
        XCTAssertEqual(guest.account.identifier, home.account.identifier)
        XCTAssertEqual(guest.tenantProfile.tenantId, EmulatorTenant.fabrikam.id)
        XCTAssertFalse(guest.tenantProfile.isHomeTenantProfile)
        let account = try XCTUnwrap(try app.application.allAccounts().first)
        XCTAssertEqual(
            Set(account.tenantProfiles?.compactMap(\.tenantId) ?? []),
            [EmulatorTenant.contoso.id, EmulatorTenant.fabrikam.id])
        XCTAssertEqual(account.accountClaims?["tid"] as? String, EmulatorTenant.contoso.id)

        let perTenant = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
        perTenant.authority = fabrikam
        let cached = try await app.application.acquireTokenSilent(with: perTenant)
        XCTAssertEqual(cached.accessToken, guest.accessToken)
    }

    func testPersonalAccountThroughConsumers() async throws {
        let consumers = try XCTUnwrap(URL(string: "https://login.microsoftonline.com/consumers"))
        let app = try EmulatedApp(emulator: emulator, authority: consumers)
        emulator.defaultUsername = EmulatorUser.carol.username
        let result = try await app.signIn()
        XCTAssertEqual(result.account.homeAccountId?.tenantId, ApplicationContext.consumersTenantId)
        let cached = try await app.application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account))
        XCTAssertEqual(cached.accessToken, result.accessToken)
    }
}
