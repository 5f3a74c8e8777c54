import Foundation
import MSALTestSupport
import Testing

@testable import MSAL

/// Swift Testing runs these cases in parallel, each with its own emulator and application routed
/// to it by host name (`login.microsoftonline.com`): an application's network settings are its
/// own, so no case reaches another case's emulator.
@Suite("Parallel applications, one emulator each")
struct ParallelEmulatorSuite {
    @Test("device code sign-in, cached, refreshed after expiry, on its own emulator", arguments: 0..<8)
    func signInAndRefreshOnItsOwnEmulator(_ index: Int) async throws {
        let emulator = try EmulatedApp.makeEmulator()
        defer { emulator.stop() }
        // Each case signs in a user of its own, so a token from another emulator would show.
        let username = "user\(index)@contoso.onmicrosoft.com"
        emulator.add(
            user: EmulatorUser(
                username: username, displayName: "User \(index)", objectId: UUID().uuidString,
                homeTenantId: EmulatorTenant.contoso.id))
        emulator.defaultUsername = username
        emulator.lifetimes = EmulatorTokenLifetimes(accessToken: 3600, refreshIn: nil, refreshToken: 86400)
        let app = try EmulatedApp(emulator: emulator)

        emulator.deviceCodeInterval = 1
        let signedIn = try await app.application.acquireTokenWithDeviceCode(
            parameters: MSALTokenParameters(scopes: ["User.Read"])
        ) { info in
            try? emulator.approveDeviceCode(userCode: info.userCode, as: username)
        }
        #expect(signedIn.account.username == username)
        let silent = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
        let cached = try await app.application.acquireTokenSilent(with: silent)
        #expect(cached.accessToken == signedIn.accessToken)
        #expect(emulator.tokenRequestCount(grantType: .refreshToken) == 0)

        // 3600 s tokens, 300 s buffer: a second before the buffer starts, still cached; half a
        // second into it, refreshed. No sleep: the application and the emulator share the clock.
        app.advance(by: 3600 - 300 - 1)
        #expect(try await app.application.acquireTokenSilent(with: silent).accessToken == signedIn.accessToken)
        app.advance(by: 1.5)
        let refreshed = try await app.application.acquireTokenSilent(with: silent)
        #expect(refreshed.accessToken != signedIn.accessToken)
        #expect(emulator.tokenRequestCount(grantType: .refreshToken) == 1)
        #expect(emulator.tokenRequestCount(grantType: .deviceCode) >= 1)
    }
}
