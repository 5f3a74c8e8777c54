import Foundation
import MSALNative
import XCTest

@testable import MSAL
@testable import MSALTestSupport

/// The scripted browser and the emulator in `response_mode=form_post`: the emulator's page is
/// submitted to the loopback listener, the code never in a URL; a custom web view cannot take it.
final class ScriptedBrowserFormPostTests: XCTestCase {
    private var emulator: EntraEmulator!
    private let correlationId = UUID()

    override func setUpWithError() throws {
        emulator = try EmulatorHarness.makeEmulator()
    }

    override func tearDown() {
        emulator?.stop()
    }

    private var browser: ScriptedBrowser {
        ScriptedBrowser(caFile: emulator.certificateAuthority.certificateFile, connectTo: emulator.connectTo)
    }

    private func request(redirectURI: String, mode: RedirectResponseMode) throws -> AuthorizationRequest {
        var request = try AuthorizationRequest(
            authorizeEndpoint: URL(string: "https://login.microsoftonline.com/common/oauth2/v2.0/authorize")!,
            clientId: EmulatorClient.sample.clientId, redirectURI: redirectURI, scope: "User.Read openid",
            correlationId: correlationId)
        request.responseMode = mode
        return request
    }

    func testTheEmulatorsFormPostPageReachesTheListenerInABody() async throws {
        let listener = try LoopbackRedirectListener(
            redirect: RedirectURI(validating: "http://localhost", customWebview: false), correlationId: nil)
        let authorize = try request(redirectURI: listener.redirectURI, mode: .formPost)
        let state = authorize.encodedState
        let waiting = Task {
            try await listener.waitForRedirect(expectedState: state, responseMode: .formPost, timeout: 30)
        }
        let browser = browser
        let page = try await browser.browse(try authorize.url())
        XCTAssertEqual(page.status, 200, page.bodyText)
        let response = try AuthorizationResponse(url: try await waiting.value, request: authorize)
        XCTAssertFalse(response.code.isEmpty)
        XCTAssertNotNil(response.clientInfo)
        // The emulator's page: hidden inputs, a script that submits them, a button without scripts.
        let formPage = try XCTUnwrap(browser.responses.first).bodyText
        XCTAssertTrue(formPage.contains("document.forms[0].submit()"), formPage)
        XCTAssertTrue(formPage.contains("<noscript>"), formPage)
        XCTAssertEqual(browser.responses.map(\.request.method), ["GET", "POST"])
        XCTAssertFalse(browser.visitedURLs.contains { $0.absoluteString.contains(response.code) })
    }

    func testACustomWebViewCannotReturnAFormPost() async throws {
        let authorize = try request(redirectURI: "http://localhost:1234", mode: .formPost)
        do {
            _ = try await browser.authorize(startURL: try authorize.url(), redirectURIPrefix: "http://localhost:1234")
            XCTFail("expected an error")
        } catch {
            XCTAssertTrue("\(error)".contains("only returns URLs"), "\(error)")
        }
    }

    func testAnEmulatorWithoutFormPostRefusesItAndListsOnlyQueryAndFragment() async throws {
        emulator.stop()
        emulator = try EmulatorHarness.makeEmulator { $0.offersFormPost = false }
        let authorize = try request(redirectURI: "http://localhost:1234", mode: .formPost)
        let url = try await browser.authorize(startURL: try authorize.url(), redirectURIPrefix: "http://localhost:1234")
        let parameters = try AuthorizationResponse.parameters(of: url, correlationId: nil)
        XCTAssertEqual(parameters["error"], "invalid_request")
        XCTAssertTrue(parameters["error_description"]?.contains("70007") == true, "\(parameters)")
        let discovery = try await CurlClient().perform(
            CurlRequest(
                url: "https://login.microsoftonline.com/common/v2.0/.well-known/openid-configuration",
                caFile: emulator.certificateAuthority.certificateFile, connectTo: emulator.connectTo))
        let json = try JSONSerialization.jsonObject(with: Data(discovery.body)) as? [String: Any]
        XCTAssertEqual(json?["response_modes_supported"] as? [String], ["query", "fragment"])
    }

    func testFormsAreReadLikeABrowserReadsThem() throws {
        let html = """
            <html><body onload="javascript:document.forms[0].submit()"><FORM Method='post' action="/cb?a=1&amp;b=2">
            <input type="hidden" name="code" value="a&amp;b&quot;c&#39;d&#x3c;" /><input name=state value=s1>
            <input type="submit" name="go" value="Go"/><input type="hidden" value="nameless"/></FORM></body></html>
            """
        let page = ScriptedBrowser.Response(
            request: .init(url: URL(string: "http://localhost:9/start")!), status: 200,
            headers: [("Content-Type", "text/html")], body: Data(html.utf8))
        let submit = try XCTUnwrap(ScriptedBrowser.selfSubmittingForm(page))
        XCTAssertEqual(submit.method, "POST")
        XCTAssertEqual(submit.url.absoluteString, "http://localhost:9/cb?a=1&b=2")
        XCTAssertEqual(String(decoding: submit.body ?? Data(), as: UTF8.self), "code=a%26b%22c%27d%3C&state=s1")
        var noScript = page
        noScript.body = Data(html.replacingOccurrences(of: ".submit()", with: "").utf8)
        XCTAssertNil(ScriptedBrowser.selfSubmittingForm(noScript), "a form nobody submits is left alone")
        var getForm = page
        getForm.body = Data(html.replacingOccurrences(of: "Method='post'", with: "method='get'").utf8)
        XCTAssertNil(ScriptedBrowser.selfSubmittingForm(getForm))
    }
}
