import Foundation
import MSALTestSupport
import XCTest

@testable import MSAL

/// Answers the client must refuse: malformed and truncated bodies from every endpoint it calls,
/// id tokens with the wrong nonce, audience or issuer or expired, and redirects that are not the
/// one the sign-in waits for.
final class FaultResponseTests: FaultSuiteCase {
    /// What an endpoint may answer that is not a usable document.
    private enum Broken: CaseIterable {
        /// HTTP 200 with a body that is not JSON.
        case notJSON
        /// HTTP 200 with JSON cut in the middle (the length header agrees: the server meant it).
        case cutJSON
        /// HTTP 200 with JSON of the wrong shape (an array).
        case wrongShape
        /// The connection closes halfway through the body, twice (the retry too).
        case connectionClosedMidBody

        var fault: EmulatorFault {
            switch self {
            case .notJSON: .response(status: 200, body: Data("<html>Service Unavailable</html>".utf8))
            case .cutJSON:
                .response(status: 200, body: Data("{\"token_type\":\"Bearer\",\"access_token\":\"eyJ0eXAi".utf8))
            case .wrongShape: .response(status: 200, body: Data("[1,2,3]".utf8))
            case .connectionClosedMidBody: .truncatedResponse
            }
        }

        var attempts: Int { self == .connectionClosedMidBody ? 2 : 1 }
    }

    /// Forgets persisted discovery, so a new application asks the network again.
    private func dropPersistedDiscovery() throws {
        let data = try Data(contentsOf: cacheFile)
        var document = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        document[CacheDiscoveryStorage.sectionName] = nil
        try JSONSerialization.data(withJSONObject: document).write(to: cacheFile, options: .atomic)
    }

    func testBrokenBodiesFromEveryEndpointAreClearErrorsAndLoseNothing() async throws {
        let first = try await signIn()
        let account = first.account
        let endpoints: [EmulatorEndpoint] = [.instanceDiscovery, .openIDConfiguration, .token, .deviceCode]
        for endpoint in endpoints {
            for broken in Broken.allCases {
                let label = "\(endpoint) \(broken)"
                try dropPersistedDiscovery()
                let before = CacheSnapshot.read(cacheFile)
                let fresh = try makeApp()
                let sent = emulator.requestCount(endpoint)
                emulator.inject(broken.fault, at: endpoint, count: broken.attempts)
                do {
                    if endpoint == .deviceCode {
                        _ = try await fresh.application.acquireTokenWithDeviceCode(
                            parameters: MSALTokenParameters(scopes: ["User.Read"]), deviceCodeCallback: { _ in })
                    } else {
                        _ = try await fresh.application.acquireTokenSilent(with: silent(account, force: true))
                    }
                    XCTFail("\(label): expected an error")
                } catch let error as NSError {
                    if broken == .connectionClosedMidBody {
                        XCTAssertEqual(error.domain, NSURLErrorDomain, "\(label): \(error)")
                        XCTAssertEqual(error.code, URLError.Code.networkConnectionLost.rawValue, "\(label): \(error)")
                    } else {
                        XCTAssertEqual(error.domain, MSALErrorDomain, "\(label): \(error)")
                        XCTAssertEqual(error.code, MSALError.internal.rawValue, "\(label): \(error)")
                        let internalCode = error.userInfo[MSALInternalErrorCodeKey] as? Int
                        XCTAssertEqual(internalCode, -42600, label)
                        let description = error.userInfo[MSALErrorDescriptionKey] as? String ?? ""
                        XCTAssertFalse(description.isEmpty, "\(label): a description")
                    }
                    XCTAssertNotNil(
                        error.userInfo[MSALCorrelationIDKey] ?? error.userInfo["MSALCorrelationIDKey"], label)
                }
                XCTAssertEqual(emulator.requestCount(endpoint) - sent, broken.attempts, "\(label): requests")
                XCTAssertEqual(emulator.pendingFaultCount, 0, label)
                assertCacheUnchanged(since: before)
            }
        }
        // Nothing was lost: the original application still serves the account.
        let cached = try await app.application.acquireTokenSilent(with: silent(account))
        XCTAssertEqual(cached.accessToken, first.accessToken)
    }

    func testIDTokensThatMustBeRejectedSaveNothing() async throws {
        _ = try await signIn()
        let cases: [(EmulatorFault.IDTokenAlteration, String)] = [
            (.nonce("a-nonce-this-sign-in-never-sent"), "nonce"),
            (.audience("11111111-2222-3333-4444-555555555555"), "audience"),
            (.issuer("https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0"), "issuer"),
            (.issuer("https://evil.example/8d2f5e1a-3b4c-4d6e-9f70-a1b2c3d4e5f6/v2.0"), "issuer"),
            (.expired(secondsAgo: 600), "expired"),
        ]
        for (alteration, word) in cases {
            let before = CacheSnapshot.read(cacheFile)
            let sent = emulator.tokenRequestCount(grantType: .authorizationCode)
            emulator.inject(.alterIDToken(alteration), at: .token, grantType: .authorizationCode)
            let error = await assertFailure(code: MSALError.internal.rawValue, internalCode: -42600) {
                _ = try await self.signIn(EmulatorUser.bob.username)
            }
            let description = error?.userInfo[MSALErrorDescriptionKey] as? String ?? ""
            XCTAssertTrue(description.contains(word), "\(alteration): \(description)")
            XCTAssertEqual(emulator.tokenRequestCount(grantType: .authorizationCode) - sent, 1, "\(alteration)")
            assertCacheUnchanged(since: before)
            XCTAssertNil(try app.application.account(forUsername: EmulatorUser.bob.username), "\(alteration)")
        }
        // A correct id token after all that signs bob in.
        try await signIn(EmulatorUser.bob.username)
        XCTAssertEqual(try app.application.allAccounts().count, 2)
    }

    /// A web view that hands back the redirect with another `state`.
    private struct StateForgingWebview: MSALWebviewProvider {
        let browser: ScriptedBrowser

        func authorize(startURL: URL, redirectURIPrefix: String) async throws -> URL {
            let url = try await browser.authorize(startURL: startURL, redirectURIPrefix: redirectURIPrefix)
            var components = try XCTUnwrap(URLComponents(url: url, resolvingAgainstBaseURL: false))
            components.queryItems = components.queryItems?.map {
                $0.name == "state" ? URLQueryItem(name: "state", value: "Zm9yZ2Vk") : $0
            }
            return try XCTUnwrap(components.url)
        }
    }

    func testRedirectWithAnotherStateIsRejectedBeforeTheCodeIsRedeemed() async throws {
        _ = try await signIn()
        let before = CacheSnapshot.read(cacheFile)
        let webview = MSALWebviewParameters()
        webview.customWebview = StateForgingWebview(browser: app.browser)
        let parameters = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview)
        parameters.loginHint = EmulatorUser.bob.username
        let error = await assertFailure(code: MSALError.internal.rawValue, internalCode: -42501) {
            _ = try await self.app.application.acquireToken(with: parameters)
        }
        XCTAssertNotNil(error)
        XCTAssertEqual(emulator.requestCount(.authorize), 2)
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .authorizationCode), 1, "the code was never redeemed")
        assertCacheUnchanged(since: before)
        remember(secret: "Zm9yZ2Vk")
    }

    func testSystemBrowserIgnoresRedirectsToAnotherPortPathOrStateAndTakesTheRealOne() async throws {
        guard FileManager.default.isExecutableFile(atPath: CurlCommand.path) else {
            throw XCTSkip("curl is not installed at \(CurlCommand.path)")
        }
        let redirectFile = folder.appendingPathComponent("redirect").path
        let goFile = folder.appendingPathComponent("go").path
        let statusFile = folder.appendingPathComponent("status").path
        // The real sign-in: curl follows the emulator's redirects and submits its form_post page.
        let signInScript = folder.appendingPathComponent("sign-in.sh")
        try ScriptedBrowser.curlScript(
            curl: CurlCommand.path, caFile: emulator.certificateAuthority.certificateFile, connectTo: emulator.connectTo
        ).write(to: signInScript, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: signInScript.path)
        // The browser: reports the redirect URI, tries a forged state and another path on the
        // listener, waits for the test, then really signs in.
        let script = folder.appendingPathComponent("browser.sh")
        try """
        #!/bin/bash
        url="$1"
        encoded=$(printf '%s' "$url" | sed -n 's/.*[?&]redirect_uri=\\([^&]*\\).*/\\1/p')
        redirect=$(printf '%b' "${encoded//%/\\\\x}")
        printf '%s' "$redirect" > '\(redirectFile)'
        forged=$(\(CurlCommand.path) -s -o /dev/null -w '%{http_code}' "$redirect?code=forged-code-000000&state=Zm9yZ2Vk")
        elsewhere=$(\(CurlCommand.path) -s -o /dev/null -w '%{http_code}' "${redirect%/}/elsewhere?code=forged-code-000000")
        echo "$forged $elsewhere" > '\(statusFile)'
        for i in $(seq 100); do [ -e '\(goFile)' ] && break; sleep 0.05; done
        exec '\(signInScript.path)' "$url"

        """.write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: script.path)
        let saved = ProcessInfo.processInfo.environment["BROWSER"]
        setenv("BROWSER", script.path, 1)
        defer {
            if let saved { setenv("BROWSER", saved, 1) } else { unsetenv("BROWSER") }
        }

        let application = app.application
        let parameters = MSALInteractiveTokenParameters(
            scopes: ["User.Read"], webviewParameters: MSALWebviewParameters())
        parameters.loginHint = EmulatorUser.alice.username
        let signIn = Task { try await application.acquireToken(with: parameters) }
        var redirect: String?
        for _ in 0..<200 where redirect == nil {
            try await Task.sleep(for: .milliseconds(25))
            redirect = try? String(contentsOfFile: redirectFile, encoding: .utf8)
        }
        let listener = try XCTUnwrap(redirect.flatMap { URLComponents(string: $0) }, "the browser was started")
        let port = try XCTUnwrap(listener.port)
        var otherPort = listener
        otherPort.port = port == 65535 ? port - 1 : port + 1
        otherPort.query = "code=forged-code-000000&state=Zm9yZ2Vk"
        XCTAssertFalse(
            MSALPublicClientApplication.handleMSALResponse(try XCTUnwrap(otherPort.url), sourceApplication: nil))
        var otherPath = listener
        otherPath.path = "/elsewhere"
        otherPath.query = "code=forged-code-000000"
        XCTAssertFalse(
            MSALPublicClientApplication.handleMSALResponse(try XCTUnwrap(otherPath.url), sourceApplication: nil))
        _ = FileManager.default.createFile(atPath: goFile, contents: Data())

        let result = try await signIn.value
        remember(result)
        XCTAssertEqual(result.account.username, EmulatorUser.alice.username)
        let statuses = try String(contentsOfFile: statusFile, encoding: .utf8).split(separator: " ").map {
            Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        }
        XCTAssertEqual(statuses, [400, 404], "the listener refused the forged state and the other path")
        XCTAssertEqual(emulator.requestCount(.authorize), 1)
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .authorizationCode), 1)
        XCTAssertEqual(CacheSnapshot.read(cacheFile).count("Account"), 1)
        remember(secret: "forged-code-000000")
    }
}
