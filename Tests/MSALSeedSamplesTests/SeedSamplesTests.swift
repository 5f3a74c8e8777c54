import Foundation
import MSAL
import MSALTestSupport
import XCTest

/// The documentation's samples run against the emulator: they must not only compile but behave as
/// their text says.
final class SeedSamplesTests: XCTestCase {
    private var emulator: EntraEmulator!

    override func setUpWithError() throws {
        emulator = try EntraEmulator()
    }

    override func tearDown() {
        emulator.stop()
    }

    private func browser() -> ScriptedBrowser {
        ScriptedBrowser(caFile: emulator.certificateAuthority.certificateFile, connectTo: emulator.connectTo)
    }

    private func application() throws -> MSALPublicClientApplication {
        let config = MSALPublicClientApplicationConfig(clientId: EmulatorClient.sample.clientId)
        config.certificateAuthorityFile = emulator.certificateAuthority.certificateFile
        config.connectTo = emulator.connectTo
        config.cacheConfig.inMemoryOnly = true
        return try MSALPublicClientApplication(configuration: config)
    }

    func testErrorHandlingSampleRecoversFromInteractionRequiredAndDeclinedScopes() throws {
        let application = try application()
        emulator.signInDecision = { _ in .signIn(username: EmulatorUser.alice.username, declinedScopes: ["Mail.Read"]) }
        let webview = MSALWebviewParameters()
        webview.customWebview = browser()
        let interactive = MSALInteractiveTokenParameters(
            scopes: ["User.Read", "Mail.Read"], webviewParameters: webview)
        let silent = MSALSilentTokenParameters(
            scopes: ["User.Read", "Mail.Read"], loginHint: EmulatorUser.alice.username)
        let finished = expectation(description: "the sample ends with a token")
        let logs = LogLines()
        let token = LogLines()
        ErrorHandlingSample.run(
            application: application, interactiveParameters: interactive, silentParameters: silent,
            log: { logs.append($0) },
            done: { accessToken in
                token.append(accessToken ?? "")
                finished.fulfill()
            })
        wait(for: [finished], timeout: 20)
        // No account yet -> interaction required -> interactive -> Mail.Read declined -> silent
        // again with the granted scopes -> token from the cache.
        XCTAssertEqual(logs.lines.first, "interactionRequired")
        XCTAssertTrue(logs.lines.contains { $0.hasPrefix("serverDeclinedScopes") }, "\(logs.lines)")
        XCTAssertFalse(token.lines.first?.isEmpty ?? true)
        // The granted scopes as Entra reports them: `email` comes with `openid` (MSAL removes only
        // openid, profile and offline_access).
        XCTAssertEqual(silent.scopes, ["User.Read", "email"])
    }

    func testMigrationSamplesRun() throws {
        MigrationGuideSamples.createApplication()
        let application = try application()
        MigrationGuideSamples.allAccounts(application: application)
        MigrationGuideSamples.accountForIdentifier(application: application, accountIdentifier: "unknown.id")
    }

    func testB2CSampleSignsInGetsATokenSilentlyAndSignsOut() throws {
        emulator.defaultUsername = EmulatorUser.dave.username
        let controller = B2CSampleViewController(clientId: EmulatorClient.sample.clientId)
        let caFile = emulator.certificateAuthority.certificateFile
        let connectTo = emulator.connectTo
        controller.viewDidLoad { config in
            config.certificateAuthorityFile = caFile
            config.connectTo = connectTo
            config.cacheConfig.inMemoryOnly = true
        }
        XCTAssertNotNil(controller.applicationContext, "\(controller.logs)")
        controller.webViewParameters?.customWebview = browser()

        let signedIn = expectation(description: "interactive")
        controller.authorizationButton(
            authority: try controller.getAuthority(forPolicy: controller.kSignupOrSigninPolicy)
        ) {
            signedIn.fulfill()
        }
        wait(for: [signedIn], timeout: 20)
        XCTAssertNotNil(controller.accessToken, "\(controller.logs)")

        let silent = expectation(description: "silent")
        controller.acquireTokenSilently { silent.fulfill() }
        wait(for: [silent], timeout: 20)
        XCTAssertEqual(controller.logs.last, "Silent token acquired")

        controller.signoutButton()
        XCTAssertEqual(try controller.applicationContext.allAccounts().count, 0)
    }
}

/// Lines appended from any thread.
final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []

    func append(_ line: String) {
        lock.lock()
        storage.append(line)
        lock.unlock()
    }

    var lines: [String] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }
}
