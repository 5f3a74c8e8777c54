import Foundation
import MSALNative
import XCTest

@testable import MSAL

/// The library's flows, through the public API, against a real OpenID Connect server
/// (glewlwyd) with `MSALOIDCAuthority`: interactive sign-in in a custom web view that logs in
/// through glewlwyd's REST API, silent refresh with rotation, device code, and its errors.
final class GlewlwydApplicationTests: XCTestCase {
    /// The headless browser as a custom web view.
    struct Webview: MSALWebviewProvider {
        let browser: GlewlwydBrowser

        func authorize(startURL: URL, redirectURIPrefix: String) async throws -> URL {
            try await browser.authorize(url: startURL, redirectPrefix: redirectURIPrefix)
        }
    }

    /// A registered redirect URI with a path: glewlwyd 2.7.5 crashes (segfault in its OIDC plugin)
    /// on an authorize request whose redirect URI has no path, such as `http://localhost`.
    private func application(_ server: GlewlwydServer, issuer: URL? = nil) throws -> MSALPublicClientApplication {
        let authority = try MSALOIDCAuthority(issuer: issuer ?? server.issuer)
        let config = MSALPublicClientApplicationConfig(
            clientId: server.clientId, redirectUri: "http://localhost:8400/callback", authority: authority)
        config.certificateAuthorityFile = server.caFile
        config.cacheConfig.inMemoryOnly = true
        return try MSALPublicClientApplication(configuration: config)
    }

    private func interactive(_ server: GlewlwydServer) throws -> MSALInteractiveTokenParameters {
        let webview = MSALWebviewParameters()
        webview.customWebview = Webview(browser: try GlewlwydBrowser(server: server))
        return MSALInteractiveTokenParameters(scopes: ["api.read"], webviewParameters: webview)
    }

    func testInteractiveThenSilentThenRotatingRefresh() async throws {
        let server = try await GlewlwydServer.shared()
        let application = try application(server)
        let signedIn = try await application.acquireToken(with: try interactive(server))
        XCTAssertFalse(signedIn.accessToken.isEmpty)
        XCTAssertNotNil(signedIn.idToken)
        let account = try XCTUnwrap(try application.allAccounts().first)
        XCTAssertEqual(account.identifier, signedIn.account.identifier, "the home account id is the id token's sub")

        let cached = try await application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: ["api.read"], account: account))
        XCTAssertEqual(cached.accessToken, signedIn.accessToken)

        let refresh = MSALSilentTokenParameters(scopes: ["api.read"], account: account)
        refresh.forceRefresh = true
        let first = try await application.acquireTokenSilent(with: refresh)
        let second = try await application.acquireTokenSilent(with: refresh)  // uses the rotated token
        XCTAssertNotEqual(first.accessToken, signedIn.accessToken)
        XCTAssertNotEqual(second.accessToken, first.accessToken)
        XCTAssertEqual(second.account.identifier, account.identifier, "refresh responses carry no id token")
    }

    func testDeviceCodeApprovedThroughTheRESTAPI() async throws {
        let server = try await GlewlwydServer.shared()
        let application = try application(server)
        let browser = try GlewlwydBrowser(server: server)
        let result = try await application.acquireTokenWithDeviceCode(
            parameters: MSALTokenParameters(scopes: ["api.read"])
        ) { info in
            let verification = info.verificationURI
            let scopes = server.scopes
            Task {
                try? await browser.approveDevice(userCode: info.userCode, verificationURI: verification, scopes: scopes)
            }
        }
        XCTAssertFalse(result.accessToken.isEmpty)
        XCTAssertEqual(try application.allAccounts().count, 1)
    }

    func testNoSessionWithPromptNoneIsInteractionRequired() async throws {
        let server = try await GlewlwydServer.shared()
        let application = try application(server)
        let webview = MSALWebviewParameters()
        webview.customWebview = Webview(browser: try GlewlwydBrowser(server: server, consents: false))
        let noSession = MSALInteractiveTokenParameters(scopes: ["api.read"], webviewParameters: webview)
        noSession.extraQueryParameters = ["prompt": "none"]
        do {
            _ = try await application.acquireToken(with: noSession)
            XCTFail("expected an error")
        } catch let error as NSError {
            XCTAssertEqual(error.domain, MSALErrorDomain)
            XCTAssertEqual(error.code, MSALError.interactionRequired.rawValue, "\(error)")
        }
    }
}
