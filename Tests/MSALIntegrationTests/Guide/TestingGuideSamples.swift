import Foundation
import MSAL
import MSALTestSupport
import Testing
import XCTest

// The samples of Docs/Testing.md, as written there (keep the two in step).

final class TestingGuideSampleTests: XCTestCase {
    private var emulator: EntraEmulator!

    override func setUpWithError() throws {
        emulator = try EntraEmulator()  // listening; Alice signs in by default
    }

    override func tearDown() {
        emulator.stop()  // port closed, threads gone, temporary cache removed
    }

    func testDeviceCodeSignInThenSilent() async throws {
        let emulator = try XCTUnwrap(emulator)
        let application = try MSALPublicClientApplication(configuration: emulator.applicationConfiguration())
        let result = try await application.acquireTokenWithDeviceCode(
            parameters: MSALTokenParameters(scopes: ["User.Read"])
        ) { info in
            try? emulator.approveDeviceCode(userCode: info.userCode, as: EmulatorUser.bob.username)
        }
        XCTAssertEqual(result.account.username, EmulatorUser.bob.username)

        emulator.advanceClock(by: 3600)  // the app's clock too: the token has expired
        let silent = MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account)
        _ = try await application.acquireTokenSilent(with: silent)
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken), 1)
    }

    func testInteractiveSignIn() async throws {
        let application = try MSALPublicClientApplication(configuration: emulator.applicationConfiguration())
        let webview = MSALWebviewParameters()
        webview.customWebview = emulator.scriptedBrowser()  // follows the emulator's redirects
        let result = try await application.acquireToken(
            with: MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview))
        XCTAssertEqual(result.account.username, EmulatorUser.alice.username)
    }
}

@Suite struct TestingGuideSampleSuite {
    static let key = try? EmulatorSigningKey()  // one RSA key for every test

    @Test(arguments: ["alice@contoso.onmicrosoft.com", "bob@contoso.onmicrosoft.com"])
    func deviceCodeSignIn(_ username: String) async throws {
        let emulator = try EntraEmulator(configuration: .init(signingKey: Self.key))
        defer { emulator.stop() }
        let application = try MSALPublicClientApplication(configuration: emulator.applicationConfiguration())
        let result = try await application.acquireTokenWithDeviceCode(
            parameters: MSALTokenParameters(scopes: ["User.Read"])
        ) { info in
            try? emulator.approveDeviceCode(userCode: info.userCode, as: username)
        }
        #expect(result.account.username == username)
    }
}
