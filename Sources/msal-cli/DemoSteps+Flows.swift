import Foundation
import MSAL
import MSALTestSupport
import Synchronization

extension DemoStep {
    static let deviceCode = DemoStep(
        title: "Device code flow",
        expected: "MSAL shows a user code; Bob enters it on another device (here: the emulator's API, called from "
            + "the callback); MSAL's polling then gets Bob's tokens"
    ) { session in
        let emulator = session.emulator
        let approval = Mutex<String?>(nil)
        let result = try await session.application.acquireTokenWithDeviceCode(
            parameters: MSALTokenParameters(scopes: ["User.Read"]),
            deviceCodeCallback: { info in
                DemoTranscript.note("message: \(info.message)")
                do {
                    try emulator.approveDeviceCode(userCode: info.userCode, as: EmulatorUser.bob.username)
                    DemoTranscript.note(
                        "approved user code \(info.userCode) as Bob; MSAL polls every \(Int(info.interval)) s")
                } catch {
                    approval.withLock { $0 = "approval failed: \(error)" }
                }
            })
        if let failure = approval.withLock({ $0 }) { throw DemoFailure(failure) }
        session.note(
            "signed in as \(result.account.username ?? "?"); access token \(DemoTranscript.short(result.accessToken))")
        try session.check(result.account.username == EmulatorUser.bob.username, "Bob signed in")
        try session.check(emulator.tokenRequestCount(grantType: .deviceCode) >= 1, "the device code was redeemed")
        try session.check(try session.application.allAccounts().count == 2, "two accounts in the cache (Alice, Bob)")
    }

    static let b2cPolicy = DemoStep(
        title: "Azure AD B2C user flow (policy) sign-in",
        expected: "an application configured with MSALB2CAuthority (a b2clogin.com authority in knownAuthorities): "
            + "Dave signs in through "
            + "the B2C_1_signin policy; his account is found by its policy and gets tokens silently"
    ) { session in
        let parameters = session.interactive(["https://contosob2c.onmicrosoft.com/api/read"])
        parameters.authority = session.b2cAuthority
        parameters.loginHint = EmulatorUser.dave.username
        let result = try await session.b2cApplication.acquireToken(with: parameters)
        session.note(
            "authority \(session.b2cAuthority.url.absoluteString) (policy \(session.b2cAuthority.policy ?? "?"))")
        session.note("signed in as \(result.account.username ?? "?"), account id \(result.account.identifier ?? "?")")
        try session.check(result.account.username == EmulatorUser.dave.username, "Dave signed in")
        let policy = "b2c_1_signin"
        let byPolicy = try session.b2cApplication.allAccounts().first {
            $0.homeAccountId?.objectId?.lowercased().hasSuffix("-" + policy) == true
        }
        try session.check(byPolicy != nil, "the account is found by its policy (object id ends with -\(policy))")
        let before = session.tokenRequests
        let silentParameters = MSALSilentTokenParameters(
            scopes: ["https://contosob2c.onmicrosoft.com/api/read"], account: byPolicy ?? result.account)
        silentParameters.authority = session.b2cAuthority
        let silent = try await session.b2cApplication.acquireTokenSilent(with: silentParameters)
        try session.check(silent.accessToken == result.accessToken, "silent returns the cached B2C token")
        try session.check(session.tokenRequests == before, "without a token request")
    }

    static let multiTenant = DemoStep(
        title: "One account, two tenants (guest access)",
        expected: "Alice, a guest in Fabrikam, gets a Fabrikam token silently with her Contoso refresh token: one "
            + "account with two tenant profiles"
    ) { session in
        let alice = try session.aliceAccount()
        let fabrikam = EmulatorTenant.fabrikam
        let authority = try MSALAADAuthority(
            url: URL(string: "https://login.microsoftonline.com/\(fabrikam.domains[0])")!)
        let result = try await session.silent(["User.Read"], alice, authority: authority)
        session.note(
            "token from tenant \(result.tenantProfile.tenantId ?? "?"): \(DemoTranscript.short(result.accessToken))")
        try session.check(result.tenantProfile.tenantId == fabrikam.id, "the token was issued by Fabrikam")
        try session.check(result.account.identifier == alice.identifier, "for the same account")
        let account = try session.application.account(forIdentifier: alice.identifier ?? "")
        let profiles = account?.tenantProfiles ?? []
        for profile in profiles {
            session.note(
                "tenant profile \(profile.tenantId ?? "?")\(profile.isHomeTenantProfile ? " (home)" : " (guest)")")
        }
        try session.check(profiles.count == 2, "two tenant profiles")
        try session.check(
            profiles.contains { $0.isHomeTenantProfile && $0.tenantId == EmulatorTenant.contoso.id },
            "Contoso is the home tenant")
        let aliceAccounts = try session.application.allAccounts().filter { $0.identifier == alice.identifier }
        try session.check(aliceAccounts.count == 1, "still one account for Alice")
    }
}
