import Foundation
import MSALTestSupport
import XCTest

@testable import MSAL

final class SilentAndInteractiveTests: XCTestCase {
    private var emulator: EntraEmulator!
    private var app: EmulatedApp!

    override func setUpWithError() throws {
        emulator = try EmulatedApp.makeEmulator()
        app = try EmulatedApp(emulator: emulator)
    }

    override func tearDown() {
        emulator.stop()
    }

    func testInteractiveSignInThenSilentFromCacheThenRefreshAfterExpiry() async throws {
        let signedIn = try await app.signIn(["User.Read"])
        XCTAssertFalse(signedIn.accessToken.isEmpty)
        XCTAssertEqual(signedIn.account.username, EmulatorUser.alice.username)
        XCTAssertEqual(signedIn.authorizationHeader, "Bearer \(signedIn.accessToken)")
        XCTAssertNotNil(signedIn.idToken)
        XCTAssertEqual(try app.application.allAccounts().map(\.username), [EmulatorUser.alice.username])

        let account = try XCTUnwrap(try app.application.account(forIdentifier: XCTUnwrap(signedIn.account.identifier)))
        let tokensBefore = emulator.requestCount(.token)
        let cached = try await app.application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
        XCTAssertEqual(cached.accessToken, signedIn.accessToken)
        XCTAssertEqual(emulator.requestCount(.token), tokensBefore, "served from the cache")
        XCTAssertEqual(Set(cached.scopes), Set(signedIn.scopes), "the scopes the server granted")
        XCTAssertTrue(cached.scopes.contains("User.Read"), "\(cached.scopes)")
        let again = try await app.application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
        XCTAssertEqual(again.scopes, cached.scopes, "the same scopes from the second hit")

        app.advance(by: 3600)
        let refreshed = try await app.application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
        XCTAssertNotEqual(refreshed.accessToken, signedIn.accessToken)
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken), 1)
    }

    func testSilentWithoutAccountNeedsInteraction() async throws {
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], loginHint: "nobody@contoso.com")
        await assertFailure(code: MSALError.interactionRequired.rawValue) {
            _ = try await self.app.application.acquireTokenSilent(with: parameters)
        }
    }
}
