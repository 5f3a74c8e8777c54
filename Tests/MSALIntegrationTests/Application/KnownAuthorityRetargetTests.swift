import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// An authority the app lists in `knownAuthorities` stays "known to the developer" when a silent
/// request re-targets it to the account's home tenant, as in MSAL for iOS: no request leaves for
/// a host the app did not configure (here `login.microsoftonline.com`, routed to a tripwire).
final class KnownAuthorityRetargetTests: XCTestCase {
    private var emulator: EntraEmulator!
    /// Where `login.microsoftonline.com` (and every other Microsoft host) leads: it only counts
    /// connections, and its certificate (of another authority) makes a client fail at once.
    private var tripwire: LoopbackHTTPSServer!

    override func setUpWithError() throws {
        emulator = try EmulatedApp.makeEmulator()
        tripwire = try LoopbackHTTPSServer { _ in .respond(.text(status: 404, "not here")) }
    }

    override func tearDown() {
        emulator.stop()
        tripwire.stop()
    }

    private func makeApp(authority: URL) throws -> EmulatedApp {
        let routes = emulator.connectTo.map { entry in
            entry.split(separator: ":").prefix(2).joined(separator: ":") + ":127.0.0.1:\(tripwire.port)"
        }
        return try EmulatedApp(emulator: emulator, authority: authority, connectTo: routes) { config in
            config.knownAuthorities = [try MSALAuthority.authority(with: authority)]
        }
    }

    func testSilentRequestForTheHomeTenantStaysOnTheKnownLoopbackAuthority() async throws {
        let app = try makeApp(authority: emulator.authority(tenant: "common"))
        let signedIn = try await app.signIn()
        XCTAssertEqual(signedIn.tenantProfile.tenantId, EmulatorTenant.contoso.id)

        // Re-targeted to https://127.0.0.1:<port>/<contoso id>: still known, so its instance
        // discovery goes to the emulator, not to login.microsoftonline.com.
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
        parameters.forceRefresh = true
        let refreshed = try await app.application.acquireTokenSilent(with: parameters)
        XCTAssertEqual(refreshed.account.identifier, signedIn.account.identifier)
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken), 1)
        XCTAssertEqual(tripwire.acceptedConnections, 0, "a request went to a host the app did not configure")
        let refresh = try XCTUnwrap(emulator.recentRequests(to: .token).last)
        XCTAssertEqual(refresh.formValue("grant_type"), "refresh_token")
        XCTAssertTrue(refresh.path.hasPrefix("/\(EmulatorTenant.contoso.id)/"), refresh.path)
    }

    func testAnUnlistedAuthorityOfAnotherTenantIsStillValidated() async throws {
        // Only a re-target carries "known" over: the same host with a tenant the app never listed,
        // asked for explicitly, is validated against the public cloud (the tripwire here).
        let app = try makeApp(authority: emulator.authority(tenant: "common"))
        let signedIn = try await app.signIn()
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
        parameters.authority = try MSALAuthority.authority(with: emulator.authority(tenant: EmulatorTenant.fabrikam.id))
        parameters.forceRefresh = true
        do {
            _ = try await app.application.acquireTokenSilent(with: parameters)
            XCTFail("an unlisted loopback authority must not be trusted")
        } catch {
            XCTAssertGreaterThan(tripwire.acceptedConnections, 0)
        }
    }
}
