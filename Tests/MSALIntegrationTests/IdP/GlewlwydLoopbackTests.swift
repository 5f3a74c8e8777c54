import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// The system-browser path against glewlwyd: its OpenID configuration lists `form_post` in
/// `response_modes_supported`, so the library asks for it and glewlwyd answers with a page whose
/// form the browser (``ScriptedBrowser/browse(_:)``, after signing in through glewlwyd's REST
/// API) POSTs to the loopback listener. The library's browser command opens nothing; the test
/// browses when the library announces the authorize URL.
final class GlewlwydLoopbackTests: XCTestCase {
    func testGlewlwydOffersFormPostAndTheCodeReachesTheListenerInAPost() async throws {
        let server = try await GlewlwydServer.shared()
        let client = try CurlClient()
        let discovery = try await client.perform(
            CurlRequest(
                url: server.issuer.absoluteString + "/.well-known/openid-configuration", caFile: server.caFile,
                timeout: 15))
        let document = try JSONSerialization.jsonObject(with: Data(discovery.body)) as? [String: Any]
        XCTAssertEqual(document?["response_modes_supported"] as? [String], ["query", "fragment", "form_post"])

        let authority = try MSALOIDCAuthority(issuer: server.issuer)
        let config = MSALPublicClientApplicationConfig(
            clientId: server.clientId, redirectUri: "http://localhost:8400/callback", authority: authority)
        config.certificateAuthorityFile = server.caFile
        config.cacheConfig.inMemoryOnly = true
        let application = try MSALPublicClientApplication(configuration: config)

        let glewlwyd = try GlewlwydBrowser(server: server)
        let browser = Locked<ScriptedBrowser?>(nil)
        let driven = Locked<Task<ScriptedBrowser.Response, any Error>?>(nil)
        let opened = Locked<URL?>(nil)
        let observer = NotificationCenter.default.addObserver(
            forName: Notification.Name(MSALWebAuthDidStartLoadNotification), object: nil, queue: nil
        ) { notification in
            guard let url = notification.userInfo?["url"] as? URL else { return }
            opened.withLock { $0 = url }
            driven.withLock {
                $0 = Task {
                    // The person signs in and consents on glewlwyd's pages, then the page goes on.
                    try await glewlwyd.signIn()
                    let scope =
                        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?
                        .first { $0.name == "scope" }?.value?.replacingOccurrences(of: "+", with: " ") ?? ""
                    try await glewlwyd.grant(scopes: scope.split(separator: " ").map(String.init))
                    let cookie = glewlwyd.cookieHeader
                    let port = server.baseURL.port
                    let scripted = ScriptedBrowser(
                        configuration: .init(
                            caFile: server.caFile,
                            onRequest: { request in
                                if request.url.port == port { request.headers.append(("Cookie", cookie)) }
                            }))
                    browser.withLock { $0 = scripted }
                    return try await scripted.browse(URL(string: url.absoluteString + "&g_continue")!)
                }
            }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let webview = MSALWebviewParameters()
        webview.browserCommand = "/usr/bin/true"
        webview.loopbackTimeout = 30
        let result = try await application.acquireToken(
            with: MSALInteractiveTokenParameters(scopes: ["api.read"], webviewParameters: webview))
        XCTAssertFalse(result.accessToken.isEmpty)
        XCTAssertNotNil(result.idToken)

        let page = try await XCTUnwrap(driven.withLock { $0 }).value
        XCTAssertEqual(page.status, 200, page.bodyText)
        let startURL = try XCTUnwrap(opened.withLock { $0 })
        XCTAssertEqual(RedirectResponseMode(startURL: startURL), .formPost)
        let scripted = try XCTUnwrap(browser.withLock { $0 })
        // glewlwyd's answer was its form_post page; the listener got the code in a POST body.
        XCTAssertTrue(scripted.responses.first?.bodyText.contains("method=\"post\"") == true)
        let delivered = try XCTUnwrap(scripted.responses.last?.request)
        XCTAssertEqual(delivered.method, "POST")
        XCTAssertEqual(delivered.url.absoluteString, "http://localhost:8400/callback")
        let body = String(decoding: delivered.body ?? Data(), as: UTF8.self)
        let code = try XCTUnwrap(
            FormURLEncoding.decode(body)?.first { $0.name == "code" }?.value, "the body carries the code: \(body)")
        XCTAssertFalse(scripted.visitedURLs.contains { $0.absoluteString.contains(code) }, "the code is in no URL")
    }
}
