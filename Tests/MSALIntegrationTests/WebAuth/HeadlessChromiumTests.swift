import Foundation
import MSALTestSupport
import XCTest

@testable import MSAL

/// A real browser on the system-browser path: Debian's `chromium`, headless, as `$BROWSER`, signs
/// in on a loopback HTTPS identity provider whose authorize endpoint redirects to the loopback
/// listener. Skipped when chromium is not installed.
final class HeadlessChromiumTests: XCTestCase {
    private static func chromiumPath() -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            for name in ["chromium", "chromium-browser"] {
                let candidate = "\(directory)/\(name)"
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
        }
        return nil
    }

    func testChromiumAsBrowserSignsInThroughTheLoopbackListener() async throws {
        guard let chromium = Self.chromiumPath() else {
            throw XCTSkip("chromium is not installed (apt-get install chromium); the headless browser test is skipped")
        }
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let idp = try FakeAuthorizeServer()
        defer { idp.stop() }
        // Trust exactly the test server's key, not every certificate.
        let browser =
            "\(chromium) --headless --no-sandbox --disable-gpu --user-data-dir=\(directory.url.path)/profile "
            + "--ignore-certificate-errors-spki-list=\(idp.server.certificate.spkiSHA256Base64) --dump-dom %s"
        var settings = WebviewSettings()
        settings.loopbackTimeout = 60
        let correlationId = UUID()
        let web = try WebAuthentication(
            settings: settings, configuredRedirectURI: nil, correlationId: correlationId,
            environment: ["BROWSER": browser, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"],
            coordinator: WebAuthSessionCoordinator())
        let request = try AuthorizationRequest(
            authorizeEndpoint: idp.authorizeEndpoint, clientId: "client-1", redirectURI: web.redirectURI,
            scope: "openid", correlationId: correlationId)
        let response = try await web.authorize(request)
        XCTAssertEqual(response.code, FakeAuthorizeServer.code)
    }

    /// Signs in on the emulator through the public API with chromium as the browser, its final
    /// DOM (`--dump-dom`) written to a file; returns the emulator and that DOM.
    private func signInOnTheEmulator(offersFormPost: Bool) async throws -> (EntraEmulator, String) {
        guard let chromium = Self.chromiumPath() else {
            throw XCTSkip("chromium is not installed (apt-get install chromium); the headless browser test is skipped")
        }
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let emulator = try EmulatedApp.makeEmulator { $0.offersFormPost = offersFormPost }
        let authority = emulator.authority(tenant: "common")
        let app = try EmulatedApp(emulator: emulator, authority: authority) { config in
            config.knownAuthorities = [try MSALAuthority.authority(with: authority)]
        }
        let dom = directory.url.appendingPathComponent("dom.html").path
        let chromiumCommand =
            "exec \(chromium) --headless --no-sandbox --disable-gpu --user-data-dir=\(directory.url.path)/profile "
            + "--ignore-certificate-errors-spki-list=\(emulator.certificate.spkiSHA256Base64) --dump-dom \"$1\" > \(dom)"
        let webview = MSALWebviewParameters()
        webview.browserCommand = "/bin/sh -c '\(chromiumCommand)' chromium %s"
        webview.loopbackTimeout = 60
        let parameters = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview)
        let result = try await app.application.acquireToken(with: parameters)
        XCTAssertEqual(result.account.username, EmulatorUser.alice.username)
        // chromium exits once the page is loaded and dumped; wait for it to have written the DOM.
        var text = ""
        for _ in 0..<100 {
            text = (try? String(contentsOfFile: dom, encoding: .utf8)) ?? ""
            if text.contains("</html>") { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        return (emulator, text)
    }

    func testChromiumRunsTheFormPostPageAndPostsTheCodeToTheListener() async throws {
        let (emulator, dom) = try await signInOnTheEmulator(offersFormPost: true)
        defer { emulator.stop() }
        let authorize = try XCTUnwrap(emulator.recentRequests(to: .authorize).last)
        XCTAssertEqual(authorize.queryValue("response_mode"), "form_post")
        // In form_post mode the listener refuses a GET with a code, so the sign-in came through the
        // form's POST; the DOM chromium ended on is the listener's page, not the emulator's form.
        XCTAssertTrue(dom.contains("Sign-in complete"), dom)
        XCTAssertFalse(dom.contains("hiddenform"), dom)
        let code = try XCTUnwrap(emulator.recentRequests(to: .token).last?.formValue("code"))
        XCTAssertFalse(dom.contains(code))
    }

    func testChromiumUsesQueryModeWhenTheServerDoesNotOfferFormPost() async throws {
        let (emulator, dom) = try await signInOnTheEmulator(offersFormPost: false)
        defer { emulator.stop() }
        let authorize = try XCTUnwrap(emulator.recentRequests(to: .authorize).last)
        XCTAssertEqual(authorize.queryValue("response_mode"), "query")
        XCTAssertTrue(dom.contains("Sign-in complete"), dom)
    }
}
