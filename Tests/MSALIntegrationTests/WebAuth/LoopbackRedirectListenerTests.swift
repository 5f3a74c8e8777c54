import Foundation
import MSALNative
import XCTest

@testable import MSAL

/// The loopback listener over real sockets, with the system `curl` as the browser.
final class LoopbackRedirectListenerTests: XCTestCase {
    private let state = "c3RhdGUtMTIz"

    private func makeListener(_ redirect: String = "http://localhost/callback") throws -> LoopbackRedirectListener {
        try LoopbackRedirectListener(
            redirect: RedirectURI(validating: redirect, customWebview: false),
            pages: .init(successMessage: "All good <here>", errorMessage: "It failed"), correlationId: nil)
    }

    /// Starts waiting in a child task and returns it.
    private func wait(
        _ listener: LoopbackRedirectListener, state: String? = nil, timeout: TimeInterval = 20
    ) -> Task<URL, any Error> {
        let expected = state ?? self.state
        return Task { try await listener.waitForRedirect(expectedState: expected, timeout: timeout) }
    }

    func testRedirectIsReturnedAndTheBrowserGetsASuccessPage() async throws {
        let listener = try makeListener()
        XCTAssertEqual(listener.redirectURI, "http://localhost:\(listener.port)/callback")
        let waiting = wait(listener)
        let target = "http://localhost:\(listener.port)/callback?code=SECRETCODE&state=\(state)&session_state=x"
        let page = try await fetch(target)
        XCTAssertEqual(page.status, 200)
        XCTAssertTrue(page.body.contains("All good &lt;here&gt;"), page.body)
        XCTAssertFalse(page.body.contains("SECRETCODE"), "no code in the page")
        let url = try await waiting.value
        XCTAssertEqual(url.absoluteString, target)
        let after = try await fetch(target)
        XCTAssertNotEqual(after.exitCode, 0, "the port is closed once the redirect arrived")
    }

    func testLocalhostIsServedOnIPv6Too() async throws {
        let listener = try makeListener()
        guard (try? TCPSocket.connect(host: "::1", port: listener.port)) != nil else {
            throw XCTSkip("no IPv6 loopback here")
        }
        let waiting = wait(listener)
        let page = try await fetch("http://[::1]:\(listener.port)/callback?code=c&state=\(state)")
        XCTAssertEqual(page.status, 200)
        let url = try await waiting.value
        XCTAssertEqual(url.host, "localhost", "the URL names the redirect URI's host")
    }

    func testOtherPathsAndMethodsGet404AndTheWaitGoesOn() async throws {
        let listener = try makeListener()
        let waiting = wait(listener)
        let base = "http://127.0.0.1:\(listener.port)"
        for (path, method) in [
            ("/favicon.ico", "GET"), ("/", "GET"), ("/callback/x?code=c&state=\(state)", "GET"),
            ("/CALLBACK?code=c&state=\(state)", "GET"), ("/callback?code=c&state=\(state)", "POST"),
            ("/callback?code=c&state=\(state)", "HEAD"),
        ] {
            let page = try await fetch(base + path, method: method)
            if method != "HEAD" {
                XCTAssertEqual(page.status, 404, "\(method) \(path)")
            }
        }
        let page = try await fetch(base + "/callback?code=good&state=\(state)")
        XCTAssertEqual(page.status, 200)
        let url = try await waiting.value
        XCTAssertEqual(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first?.value, "good")
    }

    func testWrongOrMissingStateGetsAnErrorPageAndIsIgnored() async throws {
        let listener = try makeListener()
        let waiting = wait(listener)
        let base = "http://127.0.0.1:\(listener.port)/callback"
        for query in ["?code=evil", "?code=evil&state=", "?code=evil&state=c3RhdGUtMTI0", "?error=access_denied"] {
            let page = try await fetch(base + query)
            XCTAssertEqual(page.status, 400, query)
            XCTAssertTrue(page.body.contains("does not belong to the sign-in in progress"), page.body)
        }
        let page = try await fetch(base + "?code=good&state=\(state)")
        XCTAssertEqual(page.status, 200)
        let url = try await waiting.value
        XCTAssertTrue(url.absoluteString.contains("code=good"))
    }

    func testErrorRedirectGetsTheErrorPageAndIsReturned() async throws {
        let listener = try makeListener()
        let waiting = wait(listener)
        let target =
            "http://localhost:\(listener.port)/callback?error=access_denied&error_description=%3Cscript%3E&state=\(state)"
        let page = try await fetch(target)
        XCTAssertEqual(page.status, 200)
        XCTAssertTrue(page.body.contains("It failed"), page.body)
        XCTAssertFalse(page.body.contains("<script>"))
        let url = try await waiting.value
        XCTAssertTrue(url.absoluteString.contains("error=access_denied"))
    }

    func testTimeoutIsUserCanceled() async throws {
        let listener = try makeListener()
        let started = Date()
        do {
            _ = try await listener.waitForRedirect(expectedState: state, timeout: 0.3)
            XCTFail("expected a timeout")
        } catch {
            let error = error as NSError
            XCTAssertEqual(error.code, MSALError.userCanceled.rawValue)
            XCTAssertTrue(error.localizedDescription.contains("timed out"), error.localizedDescription)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        let after = try await fetch("http://127.0.0.1:\(listener.port)/callback")
        XCTAssertNotEqual(after.exitCode, 0, "closed after the timeout")
    }

    func testTaskCancellationIsUserCanceled() async throws {
        let listener = try makeListener()
        let waiting = wait(listener)
        try await Task.sleep(for: .milliseconds(50))
        waiting.cancel()
        do {
            _ = try await waiting.value
            XCTFail("expected a cancellation")
        } catch {
            XCTAssertEqual((error as NSError).code, MSALError.userCanceled.rawValue)
        }
    }

    func testExplicitCancelAndFail() async throws {
        let listener = try makeListener()
        let waiting = wait(listener)
        listener.cancel("cancelled by the test")
        do {
            _ = try await waiting.value
            XCTFail("expected a cancellation")
        } catch {
            XCTAssertEqual((error as NSError).localizedDescription, "cancelled by the test")
        }
        let second = try makeListener()
        second.fail(NSError(domain: "test", code: 7))
        do {
            _ = try await second.waitForRedirect(expectedState: state, timeout: 10)
            XCTFail("expected the failure")
        } catch {
            XCTAssertEqual((error as NSError).code, 7)
        }
    }

    func testFixedPortIsHonoured() async throws {
        let probe = try TCPListener(host: "127.0.0.1", port: 0)
        let port = probe.port
        probe.close()
        let listener = try makeListener("http://127.0.0.1:\(port)/fixed")
        XCTAssertEqual(listener.port, port)
        XCTAssertEqual(listener.redirectURI, "http://127.0.0.1:\(port)/fixed")
        let waiting = wait(listener)
        let page = try await fetch("http://127.0.0.1:\(port)/fixed?code=c&state=\(state)")
        XCTAssertEqual(page.status, 200)
        _ = try await waiting.value
    }

    func testPortInUseIsAClearError() throws {
        let holder = try TCPListener(host: "127.0.0.1", port: 0)
        defer { holder.close() }
        do {
            _ = try makeListener("http://127.0.0.1:\(holder.port)/cb")
            XCTFail("expected the port to be busy")
        } catch {
            let error = error as NSError
            XCTAssertEqual(error.code, -50000)
            XCTAssertTrue(error.localizedDescription.contains("127.0.0.1:\(holder.port)"), error.localizedDescription)
            XCTAssertTrue(error.localizedDescription.contains("Another program"), error.localizedDescription)
        }
    }

    func testSlowSilentConnectionDoesNotBlockTheRedirect() async throws {
        let listener = try makeListener()
        let waiting = wait(listener)
        // A browser's speculative connection that never sends anything.
        let idle = try TCPSocket.connect(host: "127.0.0.1", port: listener.port)
        defer { idle.close() }
        let page = try await fetch("http://127.0.0.1:\(listener.port)/callback?code=c&state=\(state)")
        XCTAssertEqual(page.status, 200)
        _ = try await waiting.value
    }
}
