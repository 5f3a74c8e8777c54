import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// The web authentication with custom web views (no sockets): session, notifications, error mapping.
final class WebAuthenticationTests: XCTestCase {
    private let coordinator = WebAuthSessionCoordinator()
    private let correlationId = UUID()
    private let endpoint = URL(string: "https://login.microsoftonline.com/common/oauth2/v2.0/authorize")!

    private func settings(_ webview: any MSALWebviewProvider) -> WebviewSettings {
        var settings = WebviewSettings()
        settings.webviewType = .wkWebView
        settings.customWebview = webview
        return settings
    }

    private func makeWeb(_ webview: any MSALWebviewProvider, redirect: String = "myapp://auth") throws
        -> WebAuthentication
    {
        try WebAuthentication(
            settings: settings(webview), configuredRedirectURI: redirect, correlationId: correlationId,
            environment: [:], coordinator: coordinator)
    }

    func testSignInThroughACustomWebview() async throws {
        let recorder = NotificationRecorder()
        defer { recorder.stop() }
        let web = try makeWeb(EchoStateWebview())
        XCTAssertEqual(web.redirectURI, "myapp://auth")
        XCTAssertFalse(web.usesSystemBrowser)
        let request = try AuthorizationRequest(
            authorizeEndpoint: endpoint, clientId: "c", redirectURI: web.redirectURI, scope: "openid",
            correlationId: correlationId)
        let response = try await web.authorize(request)
        XCTAssertEqual(response.code, "the-code")
        XCTAssertNil(coordinator.currentSession, "the session is released")
        let names = recorder.names
        XCTAssertEqual(
            names,
            [
                MSALWebAuthDidStartLoadNotification, MSALWebAuthDidFinishLoadNotification,
                MSALWebAuthDidCompleteNotification,
            ])
        XCTAssertEqual(recorder.userInfos.first?["url"] as? URL, try request.url())
        XCTAssertEqual((recorder.userInfos.last?["url"] as? URL)?.scheme, "myapp")
    }

    func testSecondSessionIsRefusedWhileOneIsPrepared() throws {
        let first = try makeWeb(EchoStateWebview())
        assertMSALFailure(try makeWeb(EchoStateWebview()), internalCode: -42402)
        first.abandon()
        _ = try makeWeb(EchoStateWebview())
    }

    func testDroppedAuthenticationReleasesTheSession() throws {
        do {
            _ = try makeWeb(EchoStateWebview())
        }
        XCTAssertNil(coordinator.currentSession)
    }

    func testUserAgentErrorsAreMapped() async throws {
        struct Oops: Error {}
        let mslError = MSALErrors.make(.serverDeclinedScopes, "declined")
        let table: [(error: any Error & Sendable, domain: String, code: Int, internalCode: Int?)] = [
            (CancellationError(), MSALErrorDomain, -50005, nil),
            (URLError(.notConnectedToInternet), NSURLErrorDomain, -1009, nil),
            (mslError, MSALErrorDomain, -50003, nil),
            (Oops(), MSALErrorDomain, -50000, -42008),
        ]
        for row in table {
            let recorder = NotificationRecorder()
            let web = try makeWeb(FixedURLWebview(error: row.error))
            do {
                _ = try await web.authorize(startURL: endpoint)
                XCTFail("expected \(row.error)")
            } catch {
                let error = error as NSError
                XCTAssertEqual(error.domain, row.domain, "\(row.error)")
                XCTAssertEqual(error.code, row.code, "\(row.error)")
                XCTAssertEqual(error.userInfo[MSALInternalErrorCodeKey] as? Int, row.internalCode, "\(row.error)")
                XCTAssertEqual(error.userInfo[MSALCorrelationIDKey] as? String, correlationId.uuidString)
                if row.internalCode == -42008 {
                    let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError
                    XCTAssertTrue(underlying?.domain.contains("Oops") ?? false, "\(String(describing: underlying))")
                }
            }
            recorder.stop()
            XCTAssertEqual(recorder.names, [MSALWebAuthDidStartLoadNotification, MSALWebAuthDidFailNotification])
            XCTAssertNotNil(recorder.userInfos.last?["error"] as? NSError)
            XCTAssertNil(coordinator.currentSession)
        }
    }

    func testAURLThatIsNotTheRedirectIsRejected() async throws {
        for url in ["myapp://other?code=1", "https://evil.example/?code=1", "myapp://auth.evil?code=1"] {
            let web = try makeWeb(FixedURLWebview(url: URL(string: url)!))
            do {
                _ = try await web.authorize(startURL: endpoint)
                XCTFail("expected a rejection of \(url)")
            } catch {
                XCTAssertEqual((error as NSError).userInfo[MSALInternalErrorCodeKey] as? Int, -42600, url)
            }
        }
    }

    func testRunsOnce() async throws {
        let web = try makeWeb(FixedURLWebview(url: URL(string: "myapp://auth?code=1")!))
        _ = try await web.authorize(startURL: endpoint)
        do {
            _ = try await web.authorize(startURL: endpoint)
            XCTFail("expected a failure")
        } catch {
            XCTAssertEqual((error as NSError).code, -50000)
        }
    }

    func testCancelCurrentCancelsTheCustomWebview() async throws {
        let web = try makeWeb(FixedURLWebview(delay: .seconds(30)))
        let endpoint = endpoint
        let task = Task { try await web.authorize(startURL: endpoint) }
        while coordinator.currentSession == nil { await Task.yield() }
        try await Task.sleep(for: .milliseconds(20))
        XCTAssertTrue(coordinator.cancelCurrent())
        do {
            _ = try await task.value
            XCTFail("expected a cancellation")
        } catch {
            XCTAssertEqual((error as NSError).code, MSALError.userCanceled.rawValue)
        }
        XCTAssertNil(coordinator.currentSession)
    }

    func testHandleURLCompletesACustomSession() async throws {
        let web = try makeWeb(FixedURLWebview(delay: .seconds(30)))
        let endpoint = endpoint
        let task = Task { try await web.authorize(startURL: endpoint) }
        try await Task.sleep(for: .milliseconds(20))
        XCTAssertFalse(coordinator.handle(url: URL(string: "otherapp://auth?code=1")!))
        XCTAssertTrue(coordinator.handle(url: URL(string: "myapp://auth?code=from-app")!))
        let url = try await task.value
        XCTAssertEqual(url.absoluteString, "myapp://auth?code=from-app")
    }

    func testWKWebViewWithoutACustomWebviewFails() {
        var settings = WebviewSettings()
        settings.webviewType = .wkWebView
        assertMSALFailure(
            try WebAuthentication(
                settings: settings, configuredRedirectURI: nil, correlationId: correlationId, coordinator: coordinator),
            internalCode: -42000)
        XCTAssertNil(coordinator.currentSession)
    }

    func testInvalidRedirectFailsBeforeReserving() {
        assertMSALFailure(try makeWeb(EchoStateWebview(), redirect: "http://contoso.com"), internalCode: -42011)
        XCTAssertNil(coordinator.currentSession)
    }
}

/// A custom web view that answers like an identity provider: the code with the request's state.
struct EchoStateWebview: MSALWebviewProvider {
    func authorize(startURL: URL, redirectURIPrefix: String) async throws -> URL {
        let state =
            URLComponents(url: startURL, resolvingAgainstBaseURL: false)?
            .queryItems?.first { $0.name == "state" }?.value ?? ""
        return URL(string: "\(redirectURIPrefix)?code=the-code&state=\(state)")!
    }
}
