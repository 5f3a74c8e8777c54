import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// `callProtectedResource`: one request with a bearer token through the application's own
/// transport (its CA, `connectTo` and limits), to the URL's origin only, never redirected or
/// retried, bounded whatever the server sends.
final class ProtectedResourceCallTests: XCTestCase {
    private var emulator: EntraEmulator!
    private var app: EmulatedApp!
    private var resource: EmulatedProtectedResource!

    override func setUpWithError() throws {
        emulator = try EmulatedApp.makeEmulator()
        resource = try EmulatedProtectedResource(emulator: emulator, hostNames: ["graph.microsoft.com"])
        app = try EmulatedApp(emulator: emulator, connectTo: emulator.connectTo + resource.connectTo)
    }

    override func tearDown() {
        resource.stop()
        emulator.stop()
    }

    /// A test server from the emulator's CA (trusted by the app) that records what it receives.
    private func server(_ handler: @escaping @Sendable (HTTPServerRequest) -> HTTPServerAction) throws -> (
        LoopbackHTTPSServer, Locked<[HTTPServerRequest]>
    ) {
        let seen = Locked<[HTTPServerRequest]>([])
        let server = try LoopbackHTTPSServer(certificateAuthority: emulator.certificateAuthority) { request in
            seen.withLock { $0.append(request) }
            return handler(request)
        }
        return (server, seen)
    }

    func testTheAPIAnswersThroughTheApplicationsTransport() async throws {
        let signedIn = try await app.signIn()
        // graph.microsoft.com reaches the resource through the app's connectTo; TLS checks the name.
        let me = MSALProtectedResourceRequest(url: URL(string: "https://graph.microsoft.com/v1.0/me")!)
        let ok = try await app.application.callProtectedResource(
            me, authorizationHeader: signedIn.authorizationHeader)
        XCTAssertEqual(ok.statusCode, 200)
        XCTAssertNil(ok.challenge)
        let profile = try XCTUnwrap(try JSONSerialization.jsonObject(with: ok.body) as? [String: Any])
        XCTAssertEqual(profile["userPrincipalName"] as? String, signedIn.account.username)
        XCTAssertEqual(ok.headerValues("content-type").first?.hasPrefix("application/json"), true)

        app.advance(by: 60)
        resource.requireTokens(issuedAtOrAfter: emulator.now)
        let refused = try await app.application.callProtectedResource(
            me, authorizationHeader: signedIn.authorizationHeader)
        XCTAssertEqual(refused.statusCode, 401)
        let challenge = try XCTUnwrap(refused.challenge)
        XCTAssertTrue(challenge.isClaimsChallenge)
        let answered = try await app.application.acquireToken(
            forChallenge: challenge,
            with: MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account))
        let again = try await app.application.callProtectedResource(
            me, authorizationHeader: answered.authorizationHeader)
        XCTAssertEqual(again.statusCode, 200)
        XCTAssertEqual(resource.acceptedRequests, 2)
        XCTAssertEqual(resource.challengedRequests, 1)
    }

    func testMethodHeadersAndBodyAreSentAsGiven() async throws {
        let (server, seen) = try server { _ in .respond(.json(status: 201, ["id": "1"])) }
        defer { server.stop() }
        var request = MSALProtectedResourceRequest(
            url: server.baseURL.appendingPathComponent("items"), httpMethod: "patch",
            headers: [("Content-Type", "application/json"), ("If-Match", "*")], body: Data(#"{"a":1}"#.utf8))
        request.maximumResponseBodySize = 1024
        let answer = try await app.application.callProtectedResource(request, authorizationHeader: "Bearer abc")
        XCTAssertEqual(answer.statusCode, 201)
        let received = try XCTUnwrap(seen.withLock { $0.first })
        XCTAssertEqual(received.method, "PATCH")
        XCTAssertEqual(received.header("Authorization"), "Bearer abc")
        XCTAssertEqual(received.header("If-Match"), "*")
        XCTAssertEqual(received.header("Content-Type"), "application/json")
        XCTAssertEqual(received.bodyText, #"{"a":1}"#)
    }

    func testHeadReturnsTheStatusAndHeadersWithoutWaitingForTheAnnouncedBody() async throws {
        // The GET's length is announced; a HEAD answer carries no body (the server leaves it out).
        let (server, seen) = try server { _ in
            .respond(.init(headers: ["Content-Length": "1000000", "ETag": "\"v7\""]))
        }
        defer { server.stop() }
        let url = server.baseURL.appendingPathComponent("files/report")
        let start = ContinuousClock.now
        let answer = try await app.application.callProtectedResource(
            MSALProtectedResourceRequest(url: url, httpMethod: "head"), authorizationHeader: "Bearer abc")
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(5), "no wait for the announced body")
        XCTAssertEqual(answer.statusCode, 200)
        XCTAssertEqual(answer.headerValues("Content-Length"), ["1000000"])
        XCTAssertEqual(answer.headerValues("etag"), ["\"v7\""])
        XCTAssertEqual(answer.body, Data())
        let received = try XCTUnwrap(seen.withLock { $0.first })
        XCTAssertEqual(received.method, "HEAD")
        XCTAssertEqual(received.header("Authorization"), "Bearer abc")

        let refused = await assertFailure(code: MSALError.internal.rawValue, internalCode: -42000) {
            _ = try await self.app.application.callProtectedResource(
                MSALProtectedResourceRequest(url: url, httpMethod: "HEAD", body: Data("x".utf8)),
                authorizationHeader: "Bearer abc")
        }
        XCTAssertTrue(refused?.localizedDescription.contains("a HEAD request has no body") == true, "\(refused as Any)")
        XCTAssertEqual(seen.withLock { $0.count }, 1, "the HEAD with a body was not sent")
    }

    func testRedirectionsAndErrorsAreReturnedNotFollowedOrRetried() async throws {
        let (elsewhere, elsewhereSeen) = try server { _ in .respond(.json(["stolen": true])) }
        defer { elsewhere.stop() }
        let target = elsewhere.baseURL.appendingPathComponent("collect").absoluteString
        let (server, seen) = try server { request in
            request.path == "/moved"
                ? .respond(.redirect(to: target, status: 307)) : .respond(.text(status: 503, "busy"))
        }
        defer { server.stop() }
        let moved = try await app.application.callProtectedResource(
            MSALProtectedResourceRequest(url: server.baseURL.appendingPathComponent("moved")),
            authorizationHeader: "Bearer abc")
        XCTAssertEqual(moved.statusCode, 307)
        XCTAssertEqual(moved.headerValues("Location"), [target])
        XCTAssertEqual(elsewhereSeen.withLock { $0.count }, 0, "the token never goes to another origin")

        let busy = try await app.application.callProtectedResource(
            MSALProtectedResourceRequest(url: server.baseURL.appendingPathComponent("busy"), httpMethod: "POST"),
            authorizationHeader: "Bearer abc")
        XCTAssertEqual(busy.statusCode, 503)
        XCTAssertEqual(String(decoding: busy.body, as: UTF8.self), "busy")
        XCTAssertEqual(seen.withLock { $0.count }, 2, "sent once: the 503 is not retried")
    }

    func testAHostileResourceGivesAClearErrorNotAHang() async throws {
        let (server, _) = try server { request in
            request.path == "/endless" ? .respondEndlessBody() : .respondEndlessHead()
        }
        defer { server.stop() }
        var endless = MSALProtectedResourceRequest(url: server.baseURL.appendingPathComponent("endless"))
        endless.maximumResponseBodySize = 256 << 10
        let bodyError = await assertFailure(domain: NSURLErrorDomain, code: -1103) {
            _ = try await self.app.application.callProtectedResource(endless, authorizationHeader: "Bearer abc")
        }
        XCTAssertTrue(bodyError?.localizedDescription.contains("262144") == true, "\(bodyError as Any)")
        let headError = await assertFailure(domain: NSURLErrorDomain, code: -1103) {
            _ = try await self.app.application.callProtectedResource(
                MSALProtectedResourceRequest(url: server.baseURL.appendingPathComponent("head")),
                authorizationHeader: "Bearer abc")
        }
        XCTAssertNotNil(headError)
    }

    func testPlainHTTPAndMisdirectingRequestsAreRefusedBeforeConnecting() async throws {
        let seen = Locked(0)
        let plain = try LoopbackHTTPServer { _ in
            seen.withLock { $0 += 1 }
            return .respond(.json(["ok": true]))
        }
        defer { plain.stop() }
        let url = URL(string: "http://127.0.0.1:\(plain.port)/api")!
        let refused = await assertFailure(code: MSALError.internal.rawValue, internalCode: -42000) {
            _ = try await self.app.application.callProtectedResource(
                MSALProtectedResourceRequest(url: url), authorizationHeader: "Bearer abc")
        }
        XCTAssertTrue(refused?.localizedDescription.contains("allowsPlainHTTPLoopback") == true, "\(refused as Any)")
        for request in [
            MSALProtectedResourceRequest(url: url, headers: [("Host", "evil.example")]),
            MSALProtectedResourceRequest(url: url, httpMethod: "TRACE"),
            MSALProtectedResourceRequest(url: URL(string: "http://192.0.2.1/api")!),
        ] {
            var request = request
            request.allowsPlainHTTPLoopback = true
            await assertFailure(code: MSALError.internal.rawValue, internalCode: -42000) {
                _ = try await self.app.application.callProtectedResource(request, authorizationHeader: "Bearer abc")
            }
        }
        XCTAssertEqual(seen.withLock { $0 }, 0)
        await assertFailure(code: MSALError.internal.rawValue, internalCode: -42000) {
            _ = try await self.app.application.callProtectedResource(
                MSALProtectedResourceRequest(url: self.resource.meURL), authorizationHeader: "Bearer a\r\nX-Evil: 1")
        }

        var allowed = MSALProtectedResourceRequest(url: url)
        allowed.allowsPlainHTTPLoopback = true
        let answer = try await app.application.callProtectedResource(allowed, authorizationHeader: "Bearer abc")
        XCTAssertEqual(answer.statusCode, 200)
        XCTAssertEqual(seen.withLock { $0 }, 1)
    }
}
