import Foundation
import MSAL
import MSALTestSupport
import Testing

/// One clock for the application and the emulator (`applicationConfiguration()`): expiry,
/// `refresh_in`, throttling windows and device-code polling, all without sleeping. Each case has
/// its own emulator, so the cases run in parallel.
@Suite("One clock for the application and its emulator")
struct SharedClockSuite {
    static let signingKey = try? EmulatorSigningKey()

    private static func start() throws -> (EntraEmulator, MSALPublicClientApplication) {
        let emulator = try EntraEmulator(configuration: .init(signingKey: signingKey))
        let application = try MSALPublicClientApplication(
            configuration: emulator.applicationConfiguration(cache: .inMemory))
        return (emulator, application)
    }

    private static func signIn(_ application: MSALPublicClientApplication, _ emulator: EntraEmulator) async throws
        -> MSALResult
    {
        try await application.acquireTokenWithDeviceCode(parameters: MSALTokenParameters(scopes: ["User.Read"])) {
            info in
            try? emulator.approveDeviceCode(userCode: info.userCode)
        }
    }

    @Test("refresh_in: the token is refreshed once it is due, and served until then")
    func refreshInComesDue() async throws {
        let (emulator, application) = try Self.start()
        defer { emulator.stop() }
        emulator.lifetimes = EmulatorTokenLifetimes(accessToken: 7200, refreshIn: 3600)
        let first = try await Self.signIn(application, emulator)
        let silent = MSALSilentTokenParameters(scopes: ["User.Read"], account: first.account)
        emulator.advanceClock(by: 3598)
        #expect(try await application.acquireTokenSilent(with: silent).accessToken == first.accessToken)
        #expect(emulator.tokenRequestCount(grantType: .refreshToken) == 0)
        emulator.advanceClock(by: 3)
        let refreshed = try await application.acquireTokenSilent(with: silent)
        #expect(refreshed.accessToken != first.accessToken)
        #expect(emulator.tokenRequestCount(grantType: .refreshToken) == 1)
    }

    @Test("a Retry-After window passes on the shared clock")
    func throttlingWindowPasses() async throws {
        let (emulator, application) = try Self.start()
        defer { emulator.stop() }
        let first = try await Self.signIn(application, emulator)
        let silent = MSALSilentTokenParameters(scopes: ["User.Read"], account: first.account)
        silent.forceRefresh = true
        emulator.inject(.throttled(retryAfter: .seconds(60)), at: .token, grantType: .refreshToken)
        await #expect(throws: (any Error).self) { _ = try await application.acquireTokenSilent(with: silent) }
        emulator.advanceClock(by: 59)
        let stillThrottled = await #expect(throws: (any Error).self) {
            _ = try await application.acquireTokenSilent(with: silent)
        }
        #expect((stillThrottled as? NSError)?.userInfo[MSALThrottlingCacheHitKey] as? Int == 1)
        #expect(emulator.tokenRequestCount(grantType: .refreshToken) == 1, "the client kept the identical request")
        emulator.advanceClock(by: 2)
        _ = try await application.acquireTokenSilent(with: silent)
        #expect(emulator.tokenRequestCount(grantType: .refreshToken) == 2)
    }

    @Test("an unapproved device code expires after its 15 minutes, in milliseconds")
    func unapprovedDeviceCodeExpires() async throws {
        let (emulator, application) = try Self.start()
        defer { emulator.stop() }
        let started = ContinuousClock.now
        let before = emulator.now
        let error = await #expect(throws: (any Error).self) {
            _ = try await application.acquireTokenWithDeviceCode(
                parameters: MSALTokenParameters(scopes: ["User.Read"])
            ) { _ in }
        }
        #expect((error as? NSError)?.userInfo[MSALOAuthErrorKey] as? String == "expired_token")
        #expect(emulator.now.timeIntervalSince(before) >= 900)
        // Polled every 5 s of the shared clock, each poll answered authorization_pending.
        #expect(emulator.tokenRequestCount(grantType: .deviceCode) >= 170)
        #expect(ContinuousClock.now - started < .seconds(30))
    }
}
