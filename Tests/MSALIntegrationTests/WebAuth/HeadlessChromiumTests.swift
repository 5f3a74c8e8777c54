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
}
