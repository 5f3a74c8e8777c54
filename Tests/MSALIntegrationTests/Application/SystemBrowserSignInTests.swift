import Foundation
import MSALTestSupport
import XCTest

@testable import MSAL

/// The system-browser path with a real browser: headless Chromium is `$BROWSER` (through
/// `MSALWebviewParameters.browserCommand`), opens the emulator's authorize page, follows its
/// redirect to the library's loopback listener, and the sign-in completes through the public API.
final class SystemBrowserSignInTests: XCTestCase {
    private static func chromium() -> String? {
        ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    func testChromiumSignsInOnTheEmulatorThroughTheLoopbackListener() async throws {
        guard let chromium = Self.chromium() else {
            if ProcessInfo.processInfo.environment["MSAL_REQUIRE_BROWSER"] == "1" {
                XCTFail("MSAL_REQUIRE_BROWSER=1 but chromium is not installed")
                return
            }
            throw XCTSkip("chromium is not installed (apt-get install chromium)")
        }
        let emulator = try EmulatedApp.makeEmulator()
        defer { emulator.stop() }
        let authority = emulator.authority(tenant: "common")
        let app = try EmulatedApp(emulator: emulator, authority: authority) { config in
            config.knownAuthorities = [try MSALAuthority.authority(with: authority)]
        }
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        let webview = MSALWebviewParameters()
        webview.browserCommand =
            "\(chromium) --headless --no-sandbox --disable-gpu --user-data-dir=\(profile.path) "
            + "--ignore-certificate-errors-spki-list=\(emulator.certificate.spkiSHA256Base64) --dump-dom %s"
        webview.loopbackTimeout = 60
        let parameters = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview)
        let result = try await app.application.acquireToken(with: parameters)
        XCTAssertEqual(result.account.username, EmulatorUser.alice.username)
        XCTAssertEqual(emulator.requestCount(.authorize), 1)
    }
}
