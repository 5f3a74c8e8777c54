import Foundation
import XCTest

@testable import MSAL

final class PublicWebTypesTests: XCTestCase {
    func testPromptTypeValuesMatchMSAL() {
        XCTAssertEqual(MSALPromptType.selectAccount.rawValue, 0)
        XCTAssertEqual(MSALPromptType.login.rawValue, 1)
        XCTAssertEqual(MSALPromptType.consent.rawValue, 2)
        XCTAssertEqual(MSALPromptType.create.rawValue, 3)
        XCTAssertEqual(MSALPromptType.promptIfNecessary.rawValue, 4)
        XCTAssertEqual(MSALPromptType.default, .promptIfNecessary)
        XCTAssertEqual(
            MSALPromptType.allCases.compactMap(\.wireValue), ["select_account", "login", "consent", "create"])
    }

    func testWebviewTypeValuesMatchMSALForMacOS() {
        XCTAssertEqual(MSALWebviewType.default.rawValue, 0)
        XCTAssertEqual(MSALWebviewType.authenticationSession.rawValue, 1)
        XCTAssertEqual(MSALWebviewType.wkWebView.rawValue, 2)
    }

    func testNotificationNamesEqualTheirIdentifiers() {
        XCTAssertEqual(MSALWebAuthDidStartLoadNotification, "MSALWebAuthDidStartLoadNotification")
        XCTAssertEqual(MSALWebAuthDidFinishLoadNotification, "MSALWebAuthDidFinishLoadNotification")
        XCTAssertEqual(MSALWebAuthDidFailNotification, "MSALWebAuthDidFailNotification")
        XCTAssertEqual(MSALWebAuthDidCompleteNotification, "MSALWebAuthDidCompleteNotification")
        XCTAssertEqual(MSALWebAuthWillSwitchToBrokerApp, "MSALWebAuthWillSwitchToBrokerApp")
        XCTAssertEqual(MSALWebAuthDidReceiveResponseFromBroker, "MSALWebAuthDidReceiveResponseFromBroker")
    }

    func testWebviewParametersDefaultsAndSnapshot() {
        let parameters = MSALWebviewParameters()
        XCTAssertEqual(parameters.webviewType, .default)
        XCTAssertNil(parameters.customWebview)
        XCTAssertFalse(parameters.prefersEphemeralWebBrowserSession)
        XCTAssertEqual(parameters.loopbackTimeout, 600)
        XCTAssertNil(parameters.browserCommand)
        parameters.loopbackTimeout = 0
        XCTAssertEqual(parameters.loopbackTimeout, 1, "raised to one second")
        parameters.loopbackTimeout = .infinity
        XCTAssertEqual(parameters.loopbackTimeout, 600)
        parameters.successPageMessage = "Done"
        let snapshot = parameters.settings
        parameters.successPageMessage = "Changed later"
        XCTAssertEqual(snapshot.successPageMessage, "Done")
    }

    /// The seed's Swift sample, without its UIKit/WebKit lines, compiles and selects the custom web view.
    func testSeedSampleShape() throws {
        let myCustomWebView = FixedURLWebview(url: fixtureURL("myapp://auth?code=1"))
        let webViewParameters = MSALWebviewParameters()
        webViewParameters.webviewType = MSALWebviewType.wkWebView
        webViewParameters.customWebview = myCustomWebView
        guard case .custom = try webViewParameters.settings.userAgent() else {
            return XCTFail("expected the custom web view")
        }
    }

    func testUserAgentSelection() throws {
        var settings = WebviewSettings()
        guard case .systemBrowser = try settings.userAgent() else { return XCTFail("default: system browser") }
        settings.customWebview = FixedURLWebview(url: fixtureURL("myapp://auth"))
        guard case .custom = try settings.userAgent() else { return XCTFail("default with a custom web view") }
        settings.webviewType = .authenticationSession
        guard case .systemBrowser = try settings.userAgent() else { return XCTFail("authenticationSession") }
        settings.webviewType = .wkWebView
        settings.customWebview = nil
        assertMSALFailure(try settings.userAgent(), internalCode: -42000)
    }
}

/// A custom web view that returns a fixed URL (or throws).
struct FixedURLWebview: MSALWebviewProvider {
    var url: URL?
    var error: (any Error & Sendable)?
    var delay: Duration = .zero

    init(url: URL? = nil, error: (any Error & Sendable)? = nil, delay: Duration = .zero) {
        self.url = url
        self.error = error
        self.delay = delay
    }

    func authorize(startURL: URL, redirectURIPrefix: String) async throws -> URL {
        if delay > .zero { try await Task.sleep(for: delay) }
        if let error { throw error }
        return url ?? URL(string: redirectURIPrefix + "?code=c")!
    }
}
