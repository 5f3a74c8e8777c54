import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// The system-browser path end to end: a real process started as `$BROWSER` (a shell script that
/// fetches the authorize URL with curl and follows its redirects) brings the redirect back to the
/// loopback listener.
final class SystemBrowserFlowTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var idp: FakeAuthorizeServer!
    private let coordinator = WebAuthSessionCoordinator()
    private let correlationId = UUID()

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: CurlCommand.path) else {
            throw XCTSkip("curl is not installed at \(CurlCommand.path)")
        }
        directory = try TemporaryDirectory()
        idp = try FakeAuthorizeServer()
    }

    override func tearDown() {
        idp?.stop()
        directory?.cleanup()
    }

    /// A script that plays the browser: fetch the URL given as `$1`, following redirects.
    private func curlBrowser(name: String = "browser") throws -> String {
        try directory.script(
            name,
            """
            echo "$@" > "\(directory.url.path)/\(name).args"
            exec \(CurlCommand.path) -sS -L -b '' --max-time 10 --cacert '\(idp.caFile)' -o /dev/null "$1"

            """)
    }

    private func signIn(
        settings: WebviewSettings = WebviewSettings(), environment: [String: String], loginHint: String? = nil,
        redirect: String? = nil
    ) async throws -> (AuthorizationResponse, WebAuthentication) {
        let web = try WebAuthentication(
            settings: settings, configuredRedirectURI: redirect, correlationId: correlationId,
            environment: environment, coordinator: coordinator)
        var request = try AuthorizationRequest(
            authorizeEndpoint: idp.authorizeEndpoint, clientId: "client-1", redirectURI: web.redirectURI,
            scope: "user.read openid profile offline_access", correlationId: correlationId)
        request.loginHint = loginHint
        return (try await web.authorize(request), web)
    }

    func testBrowserVariableSignsIn() async throws {
        let browser = try curlBrowser()
        let recorder = NotificationRecorder()
        defer { recorder.stop() }
        let (response, web) = try await signIn(environment: ["BROWSER": browser, "PATH": "/usr/bin:/bin"])
        XCTAssertEqual(response.code, FakeAuthorizeServer.code)
        XCTAssertTrue(web.usesSystemBrowser)
        XCTAssertTrue(web.redirectURI.hasPrefix("http://localhost:"))
        let authorize = try XCTUnwrap(idp.received.first)
        XCTAssertEqual(authorize.queryValue("redirect_uri"), web.redirectURI)
        XCTAssertEqual(idp.received.last?.header("Cookie"), "esctx=session-1", "the browser kept its cookie")
        XCTAssertNil(coordinator.currentSession)
        XCTAssertEqual(
            recorder.names,
            [
                MSALWebAuthDidStartLoadNotification, MSALWebAuthDidFinishLoadNotification,
                MSALWebAuthDidCompleteNotification,
            ])
    }

    func testBrowserListWithPercentSAndAFailingFirstEntry() async throws {
        let browser = try curlBrowser()
        let value = "/nonexistent/browser:\(directory.url.path)/missing-browser %s:\(browser) %s --ignored-flag"
        let (response, _) = try await signIn(environment: ["BROWSER": value, "PATH": "/usr/bin:/bin"])
        XCTAssertEqual(response.code, FakeAuthorizeServer.code)
        let arguments = try String(contentsOfFile: directory.url.path + "/browser.args", encoding: .utf8)
        XCTAssertTrue(arguments.hasPrefix("https://127.0.0.1:"), arguments)
        XCTAssertTrue(arguments.hasSuffix(" --ignored-flag\n"), arguments)
    }

    func testURLIsOneArgumentAndNeverReachesAShell() async throws {
        let marker = directory.url.appendingPathComponent("pwned").path
        let browser = try curlBrowser()
        var settings = WebviewSettings()
        settings.browserCommand = browser
        let (response, web) = try await signIn(
            settings: settings, environment: ["PATH": "/usr/bin:/bin"], loginHint: "a$(touch \(marker))`id`;b")
        XCTAssertEqual(response.code, FakeAuthorizeServer.code)
        XCTAssertFalse(FileManager.default.fileExists(atPath: marker))
        XCTAssertNotNil(web)
    }

    func testProcessEnvironmentBrowserIsUsedByDefault() async throws {
        let browser = try curlBrowser()
        setenv("BROWSER", browser, 1)
        defer { unsetenv("BROWSER") }
        let (response, _) = try await signIn(environment: ProcessInfo.processInfo.environment)
        XCTAssertEqual(response.code, FakeAuthorizeServer.code)
    }

    func testFixedPortAndPathRedirect() async throws {
        let probe = try TCPListener(host: "127.0.0.1", port: 0)
        let port = probe.port
        probe.close()
        let (response, web) = try await signIn(
            environment: ["BROWSER": try curlBrowser()], redirect: "http://localhost:\(port)/auth/done")
        XCTAssertEqual(web.redirectURI, "http://localhost:\(port)/auth/done")
        XCTAssertEqual(response.code, FakeAuthorizeServer.code)
    }

    func testAccessDeniedComesBackAsUserCanceled() async throws {
        do {
            _ = try await signIn(environment: ["BROWSER": try curlBrowser()], loginHint: "deny@example.com")
            XCTFail("expected access_denied")
        } catch {
            let error = error as NSError
            XCTAssertEqual(error.code, MSALError.userCanceled.rawValue)
            XCTAssertEqual(error.userInfo[MSALOAuthErrorKey] as? String, "access_denied")
        }
    }

    func testBrowserThatCannotStartFailsQuicklyNamingTheCommand() async throws {
        let recorder = NotificationRecorder()
        defer { recorder.stop() }
        let started = Date()
        do {
            _ = try await signIn(environment: ["BROWSER": "/nonexistent/browser --flag", "PATH": "/usr/bin:/bin"])
            XCTFail("expected a launch failure")
        } catch {
            let error = error as NSError
            XCTAssertEqual(error.code, -50000)
            XCTAssertTrue(error.localizedDescription.contains("'/nonexistent/browser' was not found"))
            XCTAssertTrue(error.localizedDescription.contains("$BROWSER"))
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        XCTAssertEqual(recorder.names.last, MSALWebAuthDidFailNotification)
        XCTAssertNil(coordinator.currentSession)
    }

    func testBrowserThatExitsWithAnErrorIsReported() async throws {
        let failing = try directory.script("failing", "exit 3\n")
        do {
            _ = try await signIn(environment: ["BROWSER": failing])
            XCTFail("expected a launch failure")
        } catch {
            XCTAssertTrue((error as NSError).localizedDescription.contains("exited with status 3"))
        }
    }

    func testUserWhoNeverComesBackTimesOut() async throws {
        // A "browser" that opens nothing and stays up, as a real one would while the user walks away.
        let idle = try directory.script("idle", "sleep 5\n")
        var settings = WebviewSettings()
        settings.loopbackTimeout = 1
        let started = Date()
        do {
            _ = try await signIn(settings: settings, environment: ["BROWSER": idle])
            XCTFail("expected a timeout")
        } catch {
            let error = error as NSError
            XCTAssertEqual(error.code, MSALError.userCanceled.rawValue)
            XCTAssertTrue(error.localizedDescription.contains("timed out"))
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 4)
    }

    func testCancelCurrentWhileTheBrowserIsOpen() async throws {
        let idle = try directory.script("idle", "sleep 5\n")
        let web = try WebAuthentication(
            settings: WebviewSettings(), configuredRedirectURI: nil, correlationId: correlationId,
            environment: ["BROWSER": idle], coordinator: coordinator)
        let port = try XCTUnwrap(URLComponents(string: web.redirectURI)?.port)
        let endpoint = idp.authorizeEndpoint
        let task = Task { try await web.authorize(startURL: endpoint) }
        try await Task.sleep(for: .milliseconds(200))
        XCTAssertTrue(coordinator.cancelCurrent())
        do {
            _ = try await task.value
            XCTFail("expected a cancellation")
        } catch {
            XCTAssertEqual((error as NSError).code, MSALError.userCanceled.rawValue)
        }
        XCTAssertNil(coordinator.currentSession)
        XCTAssertNil(try? TCPSocket.connect(host: "127.0.0.1", port: port), "the listener is closed")
    }

    func testAppHandedRedirectCompletesALoopbackSession() async throws {
        let idle = try directory.script("idle", "sleep 5\n")
        let web = try WebAuthentication(
            settings: WebviewSettings(), configuredRedirectURI: nil, correlationId: correlationId,
            environment: ["BROWSER": idle], coordinator: coordinator)
        let endpoint = idp.authorizeEndpoint
        let task = Task { try await web.authorize(startURL: endpoint) }
        try await Task.sleep(for: .milliseconds(100))
        XCTAssertFalse(coordinator.handle(url: URL(string: "http://localhost:1/?code=x")!), "another port")
        XCTAssertTrue(coordinator.handle(url: URL(string: web.redirectURI + "?code=x")!))
        let url = try await task.value
        XCTAssertEqual(url.absoluteString, web.redirectURI + "?code=x")
    }
}
