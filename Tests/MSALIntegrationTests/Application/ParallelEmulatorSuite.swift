import Foundation
import MSAL
import MSALTestSupport
import Testing

/// Swift Testing runs these cases in parallel, each with its own emulator and an application made
/// from `EntraEmulator.applicationConfiguration()`, routed to its emulator by host name
/// (`login.microsoftonline.com`): an application's network settings are its own, so no case
/// reaches another case's emulator. Nothing sleeps: the application reads its emulator's clock.
@Suite("Parallel applications, one emulator each")
struct ParallelEmulatorSuite {
    /// One signing key for every case (making one costs a few hundred milliseconds).
    static let signingKey = try? EmulatorSigningKey()

    @Test("device code sign-in, cached, refreshed at expiry, on its own emulator", arguments: 0..<8)
    func signInAndRefreshOnItsOwnEmulator(_ index: Int) async throws {
        let emulator = try EntraEmulator(configuration: .init(signingKey: Self.signingKey))
        defer { emulator.stop() }
        // Each case signs in a user of its own, so a token from another emulator would show.
        let username = "user\(index)@contoso.onmicrosoft.com"
        emulator.add(
            user: EmulatorUser(
                username: username, displayName: "User \(index)", objectId: UUID().uuidString,
                homeTenantId: EmulatorTenant.contoso.id))
        emulator.lifetimes = EmulatorTokenLifetimes(accessToken: 3600, refreshIn: nil, refreshToken: 86400)
        let application = try MSALPublicClientApplication(configuration: emulator.applicationConfiguration())

        let signedIn = try await application.acquireTokenWithDeviceCode(
            parameters: MSALTokenParameters(scopes: ["User.Read"])
        ) { info in
            try? emulator.approveDeviceCode(userCode: info.userCode, as: username)
        }
        #expect(signedIn.account.username == username)
        let silent = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
        #expect(try await application.acquireTokenSilent(with: silent).accessToken == signedIn.accessToken)
        #expect(emulator.tokenRequestCount(grantType: .refreshToken) == 0)

        // 3600 s tokens, 300 s buffer: two seconds before the buffer starts (the cache keeps whole
        // seconds), still cached; the moment it starts (plus the milliseconds the test took),
        // refreshed, though the whole second of `expires_on` is not yet inside the buffer.
        emulator.advanceClock(by: 3600 - 300 - 2)
        #expect(try await application.acquireTokenSilent(with: silent).accessToken == signedIn.accessToken)
        emulator.advanceClock(by: 2)
        let refreshed = try await application.acquireTokenSilent(with: silent)
        #expect(refreshed.accessToken != signedIn.accessToken)
        #expect(emulator.tokenRequestCount(grantType: .refreshToken) == 1)
        #expect(emulator.tokenRequestCount(grantType: .deviceCode) == 1)
        #expect(try application.allAccounts().map(\.username) == [username])
    }
}
