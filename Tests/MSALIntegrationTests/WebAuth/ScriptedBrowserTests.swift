import Foundation
import MSALTestSupport
import XCTest

@testable import MSAL

/// The scripted browser (a custom web view for tests) against loopback HTTPS servers.
final class ScriptedBrowserTests: XCTestCase {
    private let coordinator = WebAuthSessionCoordinator()
    private let correlationId = UUID()

    private func signIn(
        with browser: ScriptedBrowser, endpoint: URL, redirect: String = "http://localhost", loginHint: String? = nil
    ) async throws -> AuthorizationResponse {
        var settings = WebviewSettings()
        settings.customWebview = browser
        let web = try WebAuthentication(
            settings: settings, configuredRedirectURI: redirect, correlationId: correlationId, environment: [:],
            coordinator: coordinator)
        var request = try AuthorizationRequest(
            authorizeEndpoint: endpoint, clientId: "client-1", redirectURI: web.redirectURI, scope: "openid",
            correlationId: correlationId)
        request.loginHint = loginHint
        return try await web.authorize(request)
    }

    func testSignsInOnARealHostNameThroughConnectTo() async throws {
        let authority = try TestCertificateAuthority()
        let certificate = try authority.issueCertificate(dnsNames: ["login.microsoftonline.com"], ipAddresses: [])
        let idp = try FakeAuthorizeServer(certificate: certificate)
        defer { idp.stop() }
        let browser = ScriptedBrowser(
            caFile: authority.certificateFile, connectTo: ["login.microsoftonline.com:443:127.0.0.1:\(idp.server.port)"]
        )
        let endpoint = URL(string: "https://login.microsoftonline.com/common/oauth2/v2.0/authorize")!
        let response = try await signIn(with: browser, endpoint: endpoint, redirect: "myapp://auth")
        XCTAssertEqual(response.code, FakeAuthorizeServer.code)
        XCTAssertEqual(browser.visitedURLs.count, 2)
        XCTAssertEqual(browser.visitedURLs.first?.host, "login.microsoftonline.com")
        XCTAssertEqual(browser.visitedURLs.last?.path, "/login", "the relative Location was resolved")
        XCTAssertEqual(idp.received.last?.header("Cookie"), "esctx=session-1")
        XCTAssertEqual(idp.received.first?.header("Host"), "login.microsoftonline.com")
    }

    func testRequestHookSeesAndAltersEachHop() async throws {
        let idp = try FakeAuthorizeServer()
        defer { idp.stop() }
        let hops = HopLog()
        let browser = ScriptedBrowser(
            configuration: .init(
                caFile: idp.caFile,
                onRequest: { request in
                    hops.append(request.hop, request.url)
                    request.headers.append(("X-Test-Hop", String(request.hop)))
                    if request.hop == 2 {
                        // Edit the URL as text: the server's path parser mistakes a raw "://" in the
                        // query for an absolute target, so the query stays percent-encoded.
                        let edited = request.url.absoluteString.replacingOccurrences(
                            of: "login_hint=alice%40example.com", with: "login_hint=deny%40example.com")
                        request.url = URL(string: edited)!
                    }
                }))
        do {
            _ = try await signIn(with: browser, endpoint: idp.authorizeEndpoint, loginHint: "alice@example.com")
            XCTFail("the altered sign-in should be denied")
        } catch let error as NSError where error.code != MSALError.userCanceled.rawValue {
            XCTFail("\(error)")
        } catch {
            XCTAssertEqual((error as NSError).code, MSALError.userCanceled.rawValue)
            XCTAssertEqual((error as NSError).userInfo[MSALOAuthErrorKey] as? String, "access_denied")
        }
        XCTAssertEqual(hops.numbers, [1, 2])
        XCTAssertEqual(idp.received.map { $0.header("X-Test-Hop") }, ["1", "2"])
    }

    func testCancelAfterHopsIsUserCanceled() async throws {
        let idp = try FakeAuthorizeServer()
        defer { idp.stop() }
        for hops in [0, 1] {
            let browser = ScriptedBrowser(configuration: .init(caFile: idp.caFile, cancelAfterHops: hops))
            do {
                _ = try await signIn(with: browser, endpoint: idp.authorizeEndpoint)
                XCTFail("expected a cancellation")
            } catch {
                XCTAssertEqual((error as NSError).code, MSALError.userCanceled.rawValue)
            }
            XCTAssertEqual(browser.visitedURLs.count, hops)
        }
    }

    func testReturnURLShortCircuits() async throws {
        let browser = ScriptedBrowser(
            configuration: .init(returnURL: URL(string: "http://localhost/?error=access_denied")!))
        let returned = try await browser.authorize(
            startURL: URL(string: "https://login.example/authorize")!, redirectURIPrefix: "http://localhost")
        XCTAssertEqual(returned.absoluteString, "http://localhost/?error=access_denied")
        XCTAssertTrue(browser.visitedURLs.isEmpty)
    }

    func testRedirectLoopRunsOutOfHops() async throws {
        let server = try LoopbackHTTPSServer { _ in .respond(.redirect(to: "/again")) }
        defer { server.stop() }
        let browser = ScriptedBrowser(
            configuration: .init(caFile: server.certificateAuthority.certificateFile, maximumHops: 5))
        do {
            _ = try await signIn(with: browser, endpoint: server.baseURL.appendingPathComponent("authorize"))
            XCTFail("expected a failure")
        } catch {
            let error = error as NSError
            XCTAssertEqual(error.code, -50000)
            XCTAssertTrue(error.localizedDescription.contains("5 requests"), error.localizedDescription)
            XCTAssertNotNil(error.userInfo[NSUnderlyingErrorKey])
        }
        XCTAssertEqual(browser.visitedURLs.count, 5)
    }

    func testFormSubmissionThroughOnResponse() async throws {
        let server = try LoopbackHTTPSServer { request in
            switch request.path {
            case "/authorize":
                let state = request.queryValue("state") ?? ""
                let redirect = request.queryValue("redirect_uri") ?? ""
                return .respond(
                    .html(
                        "<form method=post action=/submit><input name=state value=\(state)>"
                            + "<input name=redirect value=\(redirect)></form>"))
            case "/submit":
                guard request.method == "POST", request.formValue("password") == "p@ss word" else {
                    return .respond(.text(status: 401, "bad password"))
                }
                let redirect = request.formValue("redirect") ?? ""
                return .respond(.redirect(to: "\(redirect)?code=posted&state=\(request.formValue("state") ?? "")"))
            default:
                return .respond(.text(status: 404, "not found"))
            }
        }
        defer { server.stop() }
        let base = server.baseURL
        let browser = ScriptedBrowser(
            configuration: .init(
                caFile: server.certificateAuthority.certificateFile,
                onResponse: { response in
                    guard response.status == 200, response.request.url.path == "/authorize",
                        let components = URLComponents(url: response.request.url, resolvingAgainstBaseURL: false)
                    else { return nil }
                    let query = components.queryItems ?? []
                    return .form(
                        base.appendingPathComponent("submit"),
                        [
                            ("state", query.first { $0.name == "state" }?.value ?? ""),
                            ("redirect", query.first { $0.name == "redirect_uri" }?.value ?? ""),
                            ("password", "p@ss word"),
                        ])
                }))
        let response = try await signIn(with: browser, endpoint: base.appendingPathComponent("authorize"))
        XCTAssertEqual(response.code, "posted")
    }

    func testUntrustedServerFails() async throws {
        let idp = try FakeAuthorizeServer()
        defer { idp.stop() }
        let browser = ScriptedBrowser()  // system CAs only: the throwaway CA is not trusted
        do {
            _ = try await signIn(with: browser, endpoint: idp.authorizeEndpoint)
            XCTFail("expected a TLS failure")
        } catch {
            XCTAssertEqual((error as NSError).code, -50000)
            XCTAssertTrue((error as NSError).localizedDescription.contains("curl error"))
        }
    }
}

private final class HopLog: @unchecked Sendable {
    // @unchecked: `entries` is only touched while holding `lock`.
    private let lock = NSLock()
    private var entries: [(Int, URL)] = []

    func append(_ hop: Int, _ url: URL) {
        lock.lock()
        entries.append((hop, url))
        lock.unlock()
    }

    var numbers: [Int] {
        lock.lock()
        defer { lock.unlock() }
        return entries.map(\.0)
    }
}
