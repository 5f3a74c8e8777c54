import Foundation
import MSAL
import MSALTestSupport
import XCTest

/// The emulator's directory is strict, as Entra is: an app gets only the scopes it registered
/// (`invalid_scope`, AADSTS70011), and in consent mode only those its user consented to
/// (`consent_required`, AADSTS65001), so a typo in a scope fails the test.
final class EmulatorDirectoryTests: XCTestCase {
    private var emulator: EntraEmulator!

    override func setUpWithError() throws {
        emulator = try EmulatedApp.makeEmulator()
    }

    override func tearDown() {
        emulator.stop()
    }

    private func application() throws -> MSALPublicClientApplication {
        try MSALPublicClientApplication(configuration: emulator.applicationConfiguration(cache: .inMemory))
    }

    private func deviceCodeSignIn(
        _ application: MSALPublicClientApplication, _ scopes: [String], declining declined: [String] = []
    ) async throws -> MSALResult {
        let emulator = try XCTUnwrap(emulator)
        return try await application.acquireTokenWithDeviceCode(parameters: MSALTokenParameters(scopes: scopes)) {
            info in
            try? emulator.approveDeviceCode(userCode: info.userCode, declinedScopes: declined)
        }
    }

    private func interactiveSignIn(_ application: MSALPublicClientApplication, _ scopes: [String]) async throws
        -> MSALResult
    {
        let webview = MSALWebviewParameters()
        webview.customWebview = emulator.scriptedBrowser()
        return try await application.acquireToken(
            with: MSALInteractiveTokenParameters(scopes: scopes, webviewParameters: webview))
    }

    @discardableResult
    private func assertServerError(
        _ body: () async throws -> Void, oauthError: String, stsCode: Int?, subError: String? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) async -> NSError? {
        do {
            try await body()
            XCTFail("expected \(oauthError)", file: file, line: line)
            return nil
        } catch {
            let error = error as NSError
            XCTAssertEqual(error.userInfo[MSALOAuthErrorKey] as? String, oauthError, "\(error)", file: file, line: line)
            // A silent request wraps the server's error (-50002); its codes are on the underlying one.
            let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError
            let codes = error.userInfo[MSALSTSErrorCodesKey] ?? underlying?.userInfo[MSALSTSErrorCodesKey]
            if let stsCode {
                XCTAssertEqual(codes as? [Int], [stsCode], "\(error)", file: file, line: line)
            }
            if let subError {
                XCTAssertEqual(error.userInfo[MSALOAuthSubErrorKey] as? String, subError, file: file, line: line)
            }
            return error
        }
    }

    // MARK: Registered scopes

    func testAScopeTheAppDidNotRegisterIsInvalidScope() async throws {
        let application = try application()
        let error = await assertServerError(
            { _ = try await self.deviceCodeSignIn(application, ["NotAScope"]) }, oauthError: "invalid_scope",
            stsCode: 70011)
        XCTAssertTrue((error?.userInfo[MSALErrorDescriptionKey] as? String ?? "").contains("NotAScope"))
        XCTAssertEqual(emulator.requestCount(.token), 0, "refused at the device code endpoint")

        // At the authorize endpoint too (an error redirect: the code is in the description): a
        // scope of the right resource that the app never listed.
        let redirected = await assertServerError(
            { _ = try await self.interactiveSignIn(application, ["User.Read", "Mail.Send"]) },
            oauthError: "invalid_scope", stsCode: nil)
        XCTAssertTrue(
            (redirected?.userInfo[MSALErrorDescriptionKey] as? String ?? "").contains("AADSTS70011"), "\(redirected!)")
        XCTAssertEqual(emulator.signIns.count, 0)
    }

    func testARefreshForAnUnregisteredScopeIsInvalidScope() async throws {
        let application = try application()
        let signedIn = try await deviceCodeSignIn(application, ["User.Read"])
        let silent = MSALSilentTokenParameters(
            scopes: ["https://graph.microsoft.com/Mail.ReadWrite"], account: signedIn.account)
        await assertServerError(
            { _ = try await application.acquireTokenSilent(with: silent) }, oauthError: "invalid_scope", stsCode: 70011)
    }

    func testRegisteredScopesMatchCaseInsensitivelyAndUnregisteredOnesCanBeAllowed() async throws {
        let application = try application()
        let result = try await deviceCodeSignIn(application, ["user.read", "https://graph.microsoft.com/MAIL.READ"])
        XCTAssertFalse(result.accessToken.isEmpty)
        emulator.acceptsUnregisteredScopes = true
        let other = try self.application()
        _ = try await deviceCodeSignIn(other, ["Anything.You.Like"])
    }

    // MARK: Consent

    func testInConsentModeARefreshForScopesNotConsentedToNeedsInteraction() async throws {
        emulator.requiresConsent = true
        let application = try application()
        let signedIn = try await deviceCodeSignIn(application, ["User.Read"])
        XCTAssertEqual(
            emulator.consentedScopes(username: EmulatorUser.alice.username, clientId: EmulatorClient.sample.clientId),
            ["https://graph.microsoft.com/user.read"])

        // Mail.Read is registered but Alice never consented: a silent request must sign in again.
        let silent = MSALSilentTokenParameters(scopes: ["Mail.Read"], account: signedIn.account)
        let error = await assertServerError(
            { _ = try await application.acquireTokenSilent(with: silent) }, oauthError: "invalid_grant", stsCode: 65001,
            subError: "consent_required")
        XCTAssertEqual(error?.code, MSALError.interactionRequired.rawValue)

        // Consenting in the browser records it; the next refresh gets the token.
        _ = try await interactiveSignIn(application, ["Mail.Read"])
        silent.forceRefresh = true
        _ = try await application.acquireTokenSilent(with: silent)
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken), 2)
    }

    func testAdminConsentAndConsentOffLetRefreshesThrough() async throws {
        emulator.requiresConsent = true
        let application = try application()
        let signedIn = try await deviceCodeSignIn(application, ["User.Read"])
        emulator.grantConsent(
            username: EmulatorUser.alice.username, clientId: EmulatorClient.sample.clientId,
            scopes: ["https://graph.microsoft.com/.default"])
        let mail = try await application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: ["Mail.Read"], account: signedIn.account))
        XCTAssertTrue(mail.scopes.contains { $0.lowercased().hasSuffix("mail.read") }, "\(mail.scopes)")

        emulator.resetConsent(username: EmulatorUser.alice.username, clientId: EmulatorClient.sample.clientId)
        emulator.requiresConsent = false
        let again = MSALSilentTokenParameters(scopes: ["Mail.Read"], account: signedIn.account)
        again.forceRefresh = true
        _ = try await application.acquireTokenSilent(with: again)
    }

    func testAPromptNoneSignInWithoutConsentIsConsentRequired() async throws {
        emulator.requiresConsent = true
        let application = try application()
        _ = try await interactiveSignIn(application, ["User.Read"])
        let webview = MSALWebviewParameters()
        webview.customWebview = emulator.scriptedBrowser()
        let parameters = MSALInteractiveTokenParameters(scopes: ["Mail.Read"], webviewParameters: webview)
        parameters.extraQueryParameters = ["prompt": "none"]
        parameters.promptType = .promptIfNecessary
        do {
            _ = try await application.acquireToken(with: parameters)
            XCTFail("no consent to Mail.Read yet")
        } catch {
            XCTAssertEqual((error as NSError).userInfo[MSALOAuthErrorKey] as? String, "consent_required", "\(error)")
        }
    }

    // MARK: Device code approval

    func testDeviceCodeApprovalCanDeclineScopes() async throws {
        let application = try application()
        do {
            _ = try await deviceCodeSignIn(application, ["User.Read", "Mail.Read"], declining: ["Mail.Read"])
            XCTFail("a declined scope is reported")
        } catch {
            let error = error as NSError
            XCTAssertEqual(error.code, MSALError.serverDeclinedScopes.rawValue, "\(error)")
            XCTAssertEqual(error.userInfo[MSALDeclinedScopesKey] as? [String], ["Mail.Read"])
        }
        let sent = try XCTUnwrap(emulator.recentRequests(to: .token).last)
        XCTAssertEqual(sent.formValue("grant_type"), "urn:ietf:params:oauth:grant-type:device_code")
    }
}
