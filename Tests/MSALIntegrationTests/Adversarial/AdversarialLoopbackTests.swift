import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// Hostile local clients against the loopback redirect listener during a real system-browser
/// sign-in on the emulator: idle and slow-loris connections, a request for another `Host`, the
/// code replayed in a URL. The "browser" is ``ScriptedBrowser/browse(_:)``, started when the
/// library announces the authorize URL (`MSALWebAuthDidStartLoadNotification`); the library's
/// browser command is `/usr/bin/true`, which opens nothing.
final class AdversarialLoopbackTests: FaultSuiteCase {
    /// What a hostile step learns: the authorize URL the library opened and the listener's port.
    struct Opened: Sendable {
        let url: URL
        let port: Int
    }

    /// A browser on the emulator, with `onRequest` applied to every hop.
    private func browser(onRequest: (@Sendable (inout ScriptedBrowser.Request) -> Void)? = nil) -> ScriptedBrowser {
        Self.browser(emulator, onRequest: onRequest)
    }

    private static func browser(
        _ emulator: EntraEmulator, onRequest: (@Sendable (inout ScriptedBrowser.Request) -> Void)? = nil
    ) -> ScriptedBrowser {
        ScriptedBrowser(
            configuration: .init(
                caFile: emulator.certificateAuthority.certificateFile, connectTo: emulator.connectTo,
                onRequest: onRequest))
    }

    /// Runs `acquireToken` through the system-browser path; `drive` plays the browser (and the
    /// attacker) once the authorize URL is known. Returns the result and what `drive` returned.
    private func signInThroughListener<T: Sendable>(
        _ drive: @escaping @Sendable (Opened) async throws -> T
    ) async throws -> (MSALResult, T) {
        let driven = Locked<Task<T, any Error>?>(nil)
        let observer = NotificationCenter.default.addObserver(
            forName: Notification.Name(MSALWebAuthDidStartLoadNotification), object: nil, queue: nil
        ) { notification in
            guard let url = notification.userInfo?["url"] as? URL,
                let redirect = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?
                    .first(where: { $0.name == "redirect_uri" })?.value,
                let port = URLComponents(string: redirect)?.port
            else { return }
            let opened = Opened(url: url, port: port)
            driven.withLock { $0 = Task { try await drive(opened) } }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let webview = MSALWebviewParameters()
        webview.browserCommand = "/usr/bin/true"
        webview.loopbackTimeout = 30
        let parameters = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview)
        let result: MSALResult
        do {
            result = try await app.application.acquireToken(with: parameters)
        } catch {
            if let task = driven.withLock({ $0 }) { _ = try? await task.value }
            throw error
        }
        remember(result)
        let task = try XCTUnwrap(driven.withLock { $0 }, "the library announced the authorize URL")
        return (result, try await task.value)
    }

    /// The code the emulator redeemed (the one token request of the case).
    private func redeemedCode() throws -> String {
        let tokens = emulator.recentRequests(to: .token)
        XCTAssertEqual(tokens.count, 1, "one code redeemed")
        return try XCTUnwrap(tokens.first?.formValue("code"))
    }

    func testIdleConnectionsAndASlowLorisDoNotHoldTheSignIn() async throws {
        let before = CacheSnapshot.read(cacheFile)
        let browser = browser()
        let (result, timing) = try await signInThroughListener {
            opened -> (delivered: TimeInterval, held: TimeInterval) in
            var idle: [TCPSocket] = []
            defer { for socket in idle { socket.close() } }
            for _ in 0..<48 {
                idle.append(try TCPSocket.connect(host: "127.0.0.1", port: opened.port))
            }
            // A slow-loris client: a request head, one byte a second, for up to 15 s.
            // A slow-loris client: a request head, one byte a second.
            let loris = Task {
                try await onThread { try slowLoris(port: opened.port, head: "POST /?x=1 HTTP/1.1\r\n") }
            }
            let started = Date()
            let page = try await browser.browse(opened.url)
            XCTAssertEqual(page.status, 200, page.bodyText)
            let delivered = Date().timeIntervalSince(started)
            return (delivered, try await loris.value)
        }
        // (a) the app signed in, soon after the browser delivered the redirect.
        XCTAssertEqual(result.account.username, EmulatorUser.alice.username)
        XCTAssertLessThan(timing.delivered, 5, "the redirect got through at once")
        // The slow client was cut off (at the listener's 5 s deadline, or when the listener closed).
        XCTAssertLessThan(timing.held, 7, "the slow-loris connection was dropped")
        // (b) the emulator saw one sign-in and one redemption.
        XCTAssertEqual(emulator.requestCount(.authorize), 1)
        _ = try redeemedCode()
        // (c) the cache holds the new sign-in only (it was empty).
        XCTAssertTrue(before.entries.values.allSatisfy(\.isEmpty))
        XCTAssertEqual(CacheSnapshot.read(cacheFile).count("AccessToken"), 1)
    }

    func testRedirectForAnotherHostIsRefusedAndItsCodeNotRedeemed() async throws {
        let before = CacheSnapshot.read(cacheFile)
        let emulator = emulator!
        let cacheFile = cacheFile
        let plain = browser()
        let (_, seen) = try await signInThroughListener { opened -> (status: Int, tokens: Int, cache: CacheSnapshot) in
            // A page served under a rebound DNS name: the browser sends that name as Host.
            let rebound = Self.browser(emulator) { request in
                if request.url.port == opened.port { request.headers.append(("Host", "evil.example")) }
            }
            let refused = try await rebound.browse(opened.url)
            let tokens = emulator.requestCount(.token)
            let cache = CacheSnapshot.read(cacheFile)
            // The genuine browser then delivers the same redirect.
            var genuine = refused.request
            genuine.headers.removeAll { $0.name == "Host" }
            let page = try await plain.browse(genuine)
            XCTAssertEqual(page.status, 200, page.bodyText)
            return (refused.status, tokens, cache)
        }
        // (a) the listener refused the foreign host with 421 and kept waiting; the genuine one signed in.
        XCTAssertEqual(seen.status, 421)
        // (b) nothing was redeemed while the foreign request was refused, and one code in all.
        XCTAssertEqual(seen.tokens, 0, "no token request for the refused redirect")
        _ = try redeemedCode()
        // (c) the cache was not written for the refused request (it held nothing before the sign-in).
        XCTAssertTrue(before.entries.values.allSatisfy(\.isEmpty))
        XCTAssertTrue(seen.cache.entries.values.allSatisfy(\.isEmpty), "no token stored for the refused request")
    }

    func testFormPostKeepsTheCodeOutOfEveryURLAndACodeInAURLIsRefused() async throws {
        let before = CacheSnapshot.read(cacheFile)
        let emulator = emulator!
        let cacheFile = cacheFile
        let browser = browser()
        let (_, seen) = try await signInThroughListener { opened -> (status: Int, tokens: Int, cache: CacheSnapshot) in
            // The attacker replays the form's fields in a URL (a proxy log or history entry): refused.
            let replaying = Self.browser(emulator) { request in
                guard request.url.port == opened.port, request.method == "POST", let body = request.body else { return }
                request = ScriptedBrowser.Request(
                    url: URL(string: request.url.absoluteString + "?" + String(decoding: body, as: UTF8.self))!)
            }
            let refused = try await replaying.browse(opened.url)
            let tokens = emulator.requestCount(.token)
            let cache = CacheSnapshot.read(cacheFile)
            let page = try await browser.browse(opened.url)
            XCTAssertEqual(page.status, 200, page.bodyText)
            return (refused.status, tokens, cache)
        }
        // (a) the GET with the code got an error page; the sign-in then completed with a POST.
        XCTAssertEqual(seen.status, 400)
        XCTAssertEqual(seen.tokens, 0, "the code sent in a URL was not redeemed")
        XCTAssertTrue(before.entries.values.allSatisfy(\.isEmpty))
        XCTAssertTrue(seen.cache.entries.values.allSatisfy(\.isEmpty), "no token stored for the refused request")
        // (b) the authorize request asked for form_post; the code redeemed reached the listener in a
        // POST body, and no URL the browser requested held it.
        let authorize = try XCTUnwrap(emulator.recentRequests(to: .authorize).last)
        XCTAssertEqual(authorize.queryValue("response_mode"), "form_post")
        let code = try redeemedCode()
        XCTAssertFalse(browser.visitedURLs.contains { $0.absoluteString.contains(code) }, "the code is in no URL")
        let delivered = try XCTUnwrap(browser.responses.last)
        XCTAssertEqual(delivered.request.method, "POST")
        XCTAssertTrue(delivered.request.url.absoluteString.hasPrefix("http://localhost:"))
        let body = String(decoding: delivered.request.body ?? Data(), as: UTF8.self)
        XCTAssertTrue(body.contains("code=\(code)"), "the listener received the code in the body")
    }

    func testQueryModeWhenTheServerDoesNotOfferFormPost() async throws {
        emulator.stop()
        emulator = try EmulatedApp.makeEmulator { $0.offersFormPost = false }
        app = try makeApp()
        let browser = browser()
        let (result, _) = try await signInThroughListener { opened in try await browser.browse(opened.url) }
        XCTAssertEqual(result.account.username, EmulatorUser.alice.username)
        let authorize = try XCTUnwrap(emulator.recentRequests(to: .authorize).last)
        XCTAssertEqual(authorize.queryValue("response_mode"), "query")
        let code = try redeemedCode()
        let delivered = try XCTUnwrap(browser.responses.last)
        XCTAssertEqual(delivered.request.method, "GET")
        XCTAssertTrue(delivered.request.url.absoluteString.contains("code=\(code)"))
    }

    func testACustomWebViewStaysInQueryMode() async throws {
        _ = try await signIn()
        let authorize = try XCTUnwrap(emulator.recentRequests(to: .authorize).last)
        XCTAssertEqual(authorize.queryValue("response_mode"), "query")
    }
}
