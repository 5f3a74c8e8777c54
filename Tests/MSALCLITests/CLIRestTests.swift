import Foundation
import MSAL
import MSALTestSupport
import XCTest

@testable import msal_cli

/// `msal rest` against the emulator's protected resources and hostile servers, run as a
/// separate process through the library's transport.
final class CLIRestTests: XCTestCase {
    private var environment: CLITestEnvironment!
    private var resource: EmulatedProtectedResource!

    override func setUpWithError() throws {
        environment = try CLITestEnvironment()
        resource = try EmulatedProtectedResource(emulator: environment.emulator, hostNames: ["graph.microsoft.com"])
    }

    override func tearDown() {
        resource?.stop()
        environment?.tearDown()
    }

    /// The emulator's and the resource's host routes.
    private var connectTo: [String: String] {
        ["MSAL_CONNECT_TO": (environment.emulator.connectTo + resource.connectTo).joined(separator: ",")]
    }

    private func rest(_ arguments: [String], line: UInt = #line) throws -> CLIProcess.Result {
        try environment.run(["rest"] + arguments, extra: connectTo, line: line)
    }

    private func signIn() throws {
        let login = try environment.deviceCodeLogin(as: EmulatorUser.alice.username)
        XCTAssertEqual(login.status, 0, login.errorOutput)
    }

    /// Token requests the emulator received so far.
    private var tokenRequests: [EmulatorRequestRecord] { environment.emulator.recentRequests(to: .token) }

    /// A server from the emulator's CA (which the tool trusts) that records every request.
    private func server(_ handler: @escaping @Sendable (HTTPServerRequest) -> HTTPServerAction) throws -> (
        LoopbackHTTPSServer, Recorder
    ) {
        let recorder = Recorder()
        let server = try LoopbackHTTPSServer(certificateAuthority: environment.emulator.certificateAuthority) {
            recorder.add($0)
            return handler($0)
        }
        return (server, recorder)
    }

    final class Recorder: @unchecked Sendable {
        // @unchecked: `requests` is only touched under `lock`.
        private let lock = NSLock()
        private var requests: [HTTPServerRequest] = []

        func add(_ request: HTTPServerRequest) {
            lock.lock()
            defer { lock.unlock() }
            requests.append(request)
        }

        var all: [HTTPServerRequest] {
            lock.lock()
            defer { lock.unlock() }
            return requests
        }
    }

    // MARK: Decisions

    func testTheScopeComesFromTheOptionsThenTheWellKnownAPIsThenTheMetadata() {
        let graph = URL(string: "https://GRAPH.microsoft.com/v1.0/me")!
        XCTAssertEqual(RestCommand.scopeSource(url: graph, given: ["User.Read"]), .given(["User.Read"]))
        XCTAssertEqual(
            RestCommand.scopeSource(url: graph, given: []), .wellKnown(["https://graph.microsoft.com/.default"]))
        XCTAssertEqual(
            RestCommand.scopeSource(
                url: URL(string: "https://management.azure.com/subscriptions?api-version=2022-12-01")!, given: []),
            .wellKnown(["https://management.azure.com/.default"]))
        XCTAssertEqual(
            RestCommand.scopeSource(url: URL(string: "https://graph.microsoft.com.evil.example/me")!, given: []),
            .resourceMetadata)
        XCTAssertEqual(
            RestCommand.scopeSource(url: URL(string: "https://mcp.example.com/mcp")!, given: []), .resourceMetadata)
    }

    func testOneClaimsChallengeIsAnsweredNeverTwo() {
        XCTAssertEqual(RestCommand.next(status: 200, isClaimsChallenge: false, answeredOnce: false), .stop(.success))
        XCTAssertEqual(RestCommand.next(status: 204, isClaimsChallenge: false, answeredOnce: true), .stop(.success))
        XCTAssertEqual(RestCommand.next(status: 401, isClaimsChallenge: true, answeredOnce: false), .answerChallenge)
        XCTAssertEqual(RestCommand.next(status: 401, isClaimsChallenge: true, answeredOnce: true), .stop(.httpError))
        XCTAssertEqual(RestCommand.next(status: 401, isClaimsChallenge: false, answeredOnce: false), .stop(.httpError))
        XCTAssertEqual(RestCommand.next(status: 403, isClaimsChallenge: true, answeredOnce: false), .stop(.httpError))
        XCTAssertEqual(RestCommand.next(status: 302, isClaimsChallenge: false, answeredOnce: false), .stop(.httpError))
        XCTAssertEqual(RestCommand.next(status: 429, isClaimsChallenge: false, answeredOnce: false), .stop(.throttled))
        XCTAssertEqual(ExitCode.httpError.rawValue, 8)
    }

    // MARK: Against the emulator's resource

    func testGetMeWithTheWellKnownGraphScope() throws {
        try signIn()
        let result = try rest(["https://graph.microsoft.com/v1.0/me"])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        let profile = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any], result.output)
        XCTAssertEqual(profile["userPrincipalName"] as? String, EmulatorUser.alice.username)
        XCTAssertEqual(result.errorOutput, "HTTP 200\n")
        XCTAssertFalse(result.output.hasSuffix("\n"), "the body as received, nothing added in a pipe")
        XCTAssertEqual(resource.acceptedRequests, 1)

        let json = try rest(["https://graph.microsoft.com/v1.0/me", "-o", "json"])
        XCTAssertEqual(json.status, 0, json.errorOutput)
        let document = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any], json.output)
        XCTAssertEqual(document["status"] as? Int, 200)
        XCTAssertEqual(
            (document["body"] as? [String: Any])?["userPrincipalName"] as? String, EmulatorUser.alice.username)
        XCTAssertNotNil((document["headers"] as? [String: String])?["content-type"])
    }

    func testAClaimsChallengeGetsOneNewTokenThenTheCallSucceeds() throws {
        try signIn()
        XCTAssertEqual(try rest(["https://graph.microsoft.com/v1.0/me"]).status, 0)
        let before = tokenRequests.count
        // A revocation event: tokens issued until now get a claims challenge.
        environment.emulator.advanceClock(by: 60)
        resource.requireTokens(issuedAtOrAfter: environment.emulator.now)

        let result = try rest(["https://graph.microsoft.com/v1.0/me"])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertTrue(result.output.contains(EmulatorUser.alice.username), result.output)
        XCTAssertTrue(result.errorOutput.contains("claims challenge"), result.errorOutput)
        let sent = Array(tokenRequests.dropFirst(before))
        XCTAssertEqual(sent.count, 1, "exactly one new token: \(sent.map(\.formItems))")
        XCTAssertEqual(sent.first?.formItems.first { $0.name == "grant_type" }?.value, "refresh_token")
        let claims = sent.first?.formItems.first { $0.name == "claims" }?.value ?? ""
        XCTAssertTrue(claims.contains(#""nbf":{"essential":true"#), claims)
        XCTAssertEqual(resource.challengedRequests, 1)
        XCTAssertEqual(resource.acceptedRequests, 2)
    }

    func testASecondChallengeInARowStopsWithAClearError() throws {
        try signIn()
        XCTAssertEqual(try rest(["https://graph.microsoft.com/v1.0/me"]).status, 0, "the .default token is cached")
        let before = tokenRequests.count
        // The resource refuses every token, even new ones.
        resource.requireTokens(issuedAtOrAfter: environment.emulator.now.addingTimeInterval(86_400))
        let result = try rest(["https://graph.microsoft.com/v1.0/me"])
        XCTAssertEqual(result.status, 8, result.errorOutput)
        XCTAssertTrue(result.errorOutput.contains("HTTP 401"), result.errorOutput)
        XCTAssertTrue(result.errorOutput.contains("not trying again"), result.errorOutput)
        XCTAssertEqual(tokenRequests.count - before, 1, "one token for the challenge, no loop")
        XCTAssertEqual(resource.challengedRequests, 2)
        XCTAssertEqual(resource.acceptedRequests, 1)
        XCTAssertTrue(result.output.contains("InvalidAuthenticationToken"), "the body is printed: \(result.output)")
    }

    func testAnMCPStyleResourceNamesItsScopeThroughItsMetadata() throws {
        let tenant = EmulatorTenant.contoso.id
        let mcp = try EmulatedProtectedResource.mcp(
            emulator: environment.emulator,
            authorizationServer: try XCTUnwrap(URL(string: "https://login.microsoftonline.com/\(tenant)/v2.0")),
            requiredScope: "mcp.tools")
        defer { mcp.stop() }
        var client = EmulatorClient.sample
        client.permissions[mcp.audience] = ["mcp.tools"]
        environment.emulator.add(client: client)
        try signIn()
        let result = try rest(["--method", "POST", "--body", "{}", mcp.resourceURL.absoluteString])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertEqual(mcp.acceptedRequests, 1)
        let scope = tokenRequests.last?.formItems.first { $0.name == "scope" }?.value ?? ""
        XCTAssertTrue(scope.contains(mcp.audience + "/.default"), scope)
    }

    // MARK: Requests as given

    func testPostWithABodyAndHeaders() throws {
        try signIn()
        let (server, recorder) = try server { _ in .respond(.json(status: 201, ["id": "42"])) }
        defer { server.stop() }
        let file = environment.directory.appendingPathComponent("body.json")
        try Data(#"{"subject":"from a file"}"#.utf8).write(to: file)
        let url = server.baseURL.appendingPathComponent("v1.0/items").absoluteString
        let inline = try rest([
            "--method", "post", "--body", #"{"subject":"hi"}"#, "--header", "X-Trace: abc", "--header",
            "If-Match: *", "--scope", "User.Read", url,
        ])
        XCTAssertEqual(inline.status, 0, inline.errorOutput)
        XCTAssertEqual(inline.output, #"{"id":"42"}"#)
        XCTAssertEqual(inline.errorOutput, "HTTP 201\n")
        let fromFile = try rest([
            "--method", "PUT", "--body", "@" + file.path, "--header", "Content-Type: text/plain", "--scope",
            "User.Read", url,
        ])
        XCTAssertEqual(fromFile.status, 0, fromFile.errorOutput)
        let received = recorder.all
        XCTAssertEqual(received.map(\.method), ["POST", "PUT"])
        XCTAssertEqual(received.first?.bodyText, #"{"subject":"hi"}"#)
        XCTAssertEqual(received.first?.header("X-Trace"), "abc")
        XCTAssertEqual(received.first?.header("If-Match"), "*")
        XCTAssertEqual(received.first?.header("Content-Type"), "application/json")
        XCTAssertTrue(received.first?.header("Authorization")?.hasPrefix("Bearer ey") == true)
        XCTAssertEqual(received.last?.bodyText, #"{"subject":"from a file"}"#)
        XCTAssertEqual(received.last?.header("Content-Type"), "text/plain")
    }

    func testHeadPrintsTheStatusAndHeadersWithoutWaitingForABody() throws {
        try signIn()
        let (server, recorder) = try server { _ in
            .respond(.init(headers: ["Content-Length": "1000000", "Last-Modified": "Tue, 01 Dec 2026 10:00:00 GMT"]))
        }
        defer { server.stop() }
        let url = server.baseURL.appendingPathComponent("v1.0/files/1").absoluteString
        let start = Date()
        let text = try rest(["--method", "HEAD", "--scope", "User.Read", "--timeout", "20", url])
        XCTAssertEqual(text.status, 0, text.errorOutput)
        XCTAssertEqual(text.output, "")
        XCTAssertEqual(text.errorOutput, "HTTP 200\n")
        let json = try rest(["--method", "head", "--scope", "User.Read", "--timeout", "20", "-o", "json", url])
        XCTAssertLessThan(Date().timeIntervalSince(start), 15, "no wait for the announced body")
        XCTAssertEqual(json.status, 0, json.errorOutput)
        let document = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any], json.output)
        XCTAssertEqual(document["status"] as? Int, 200)
        let headers = try XCTUnwrap(document["headers"] as? [String: String])
        XCTAssertEqual(headers["content-length"], "1000000")
        XCTAssertEqual(headers["last-modified"], "Tue, 01 Dec 2026 10:00:00 GMT")
        XCTAssertEqual(document["body"] as? String, "")
        XCTAssertEqual(recorder.all.map(\.method), ["HEAD", "HEAD"])
        XCTAssertTrue(recorder.all.allSatisfy { $0.header("Authorization")?.hasPrefix("Bearer ey") == true })
    }

    func testAnErrorStatusIsExitCode8WithTheBodyPrinted() throws {
        try signIn()
        let (server, _) = try server { request in
            request.path == "/gone"
                ? .respond(.redirect(to: "https://elsewhere.example/collect", status: 302))
                : .respond(.json(status: 404, ["error": ["code": "Request_ResourceNotFound"]]))
        }
        defer { server.stop() }
        let missing = try rest(["--scope", "User.Read", server.baseURL.appendingPathComponent("x").absoluteString])
        XCTAssertEqual(missing.status, 8, missing.errorOutput)
        XCTAssertTrue(missing.output.contains("Request_ResourceNotFound"), missing.output)
        XCTAssertTrue(missing.errorOutput.hasPrefix("HTTP 404\n"), missing.errorOutput)
        let moved = try rest(["--scope", "User.Read", server.baseURL.appendingPathComponent("gone").absoluteString])
        XCTAssertEqual(moved.status, 8, moved.errorOutput)
        XCTAssertTrue(moved.errorOutput.contains("redirections are not followed"), moved.errorOutput)
    }

    // MARK: Usage and refusals

    func testAnUnknownHostWithoutScopeIsAOneLineUsageError() throws {
        try signIn()
        let (server, recorder) = try server { _ in .respond(.json(status: 404, ["error": "not found"])) }
        defer { server.stop() }
        let result = try rest([server.baseURL.appendingPathComponent("api/items").absoluteString])
        XCTAssertEqual(result.status, 2, result.errorOutput)
        XCTAssertEqual(result.errorOutput.split(separator: "\n").count, 1, result.errorOutput)
        XCTAssertTrue(result.errorOutput.contains("pass --scope or --resource"), result.errorOutput)
        XCTAssertEqual(result.output, "")
        let paths = recorder.all.map(\.path)
        XCTAssertEqual(
            paths, ["/.well-known/oauth-protected-resource/api/items", "/.well-known/oauth-protected-resource"])
        XCTAssertTrue(recorder.all.allSatisfy { $0.header("Authorization") == nil }, "no token was sent")
    }

    func testUsageErrors() throws {
        let cases: [([String], String)] = [
            ([], "the URL to call is required"),
            (["https://a.example/x", "https://b.example/y"], "give one URL"),
            (["http://127.0.0.1:9/x"], "--allow-loopback-http"),
            (["http://api.example.com/x", "--allow-loopback-http", "--scope", "User.Read"], "over https only"),
            (["--method", "TRACE", "https://graph.microsoft.com/v1.0/me"], "is not one of GET, HEAD, POST"),
            (["--method", "head", "--body", "x", "https://graph.microsoft.com/v1.0/me"], "sends no --body"),
            (["--header", "NoColon", "https://graph.microsoft.com/v1.0/me"], "is not \"Name: value\""),
            (["--body", "@/nonexistent/file", "https://graph.microsoft.com/v1.0/me"], "cannot be read"),
            (["-o", "tsv", "https://graph.microsoft.com/v1.0/me"], "-o tsv does not apply"),
            (["ftp://a.example/x"], "is not an https URL"),
        ]
        try signIn()
        for (arguments, message) in cases {
            let result = try rest(arguments)
            XCTAssertTrue(result.errorOutput.contains(message), "\(arguments): \(result.errorOutput)")
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.errorOutput)")
            XCTAssertEqual(result.errorOutput.split(separator: "\n").count, 1, result.errorOutput)
            XCTAssertEqual(result.output, "")
        }
    }

    func testPlainHTTPOnlyToLoopbackAndOnlyWhenAllowed() throws {
        try signIn()
        let recorder = Recorder()
        let plain = try LoopbackHTTPServer { request in
            recorder.add(request)
            return .respond(.json(["ok": true]))
        }
        defer { plain.stop() }
        let url = "http://127.0.0.1:\(plain.port)/api"
        let refused = try rest(["--scope", "User.Read", url])
        XCTAssertEqual(refused.status, 2, refused.errorOutput)
        XCTAssertTrue(refused.errorOutput.contains("--allow-loopback-http"), refused.errorOutput)
        XCTAssertEqual(recorder.all.count, 0)
        let allowed = try rest(["--scope", "User.Read", "--allow-loopback-http", url])
        XCTAssertEqual(allowed.status, 0, allowed.errorOutput)
        XCTAssertEqual(allowed.output, #"{"ok":true}"#)
        XCTAssertTrue(recorder.all.first?.header("Authorization")?.hasPrefix("Bearer ") == true)
    }

    // MARK: Hostile resources

    func testABodyWithControlCharactersIsEscapedOnATerminalAndRawInAPipe() throws {
        try signIn()
        let hostile = "\u{1B}[2J\u{1B}]0;owned\u{07}evil\r\nline"
        let (server, _) = try server { _ in .respond(.text(hostile)) }
        defer { server.stop() }
        let url = server.baseURL.appendingPathComponent("x").absoluteString
        let piped = try rest(["--scope", "User.Read", url])
        XCTAssertEqual(piped.status, 0, piped.errorOutput)
        XCTAssertEqual(piped.output, hostile, "a pipe gets the bytes as received")

        let variables = connectTo.merging(["MSAL_CACHE": environment.cacheFile]) { $1 }
        let terminal = try environment.runInTerminal(
            "\(try CLIProcess.executable().path) rest --scope User.Read \(url)", extra: variables)
        XCTAssertEqual(terminal.status, 0, terminal.output)
        XCTAssertFalse(terminal.output.contains("\u{1B}"), terminal.output)
        XCTAssertFalse(terminal.output.contains("\u{07}"), terminal.output)
        XCTAssertTrue(terminal.output.contains("\\u{1B}[2J\\u{1B}]0;owned\\u{7}evil"), terminal.output)
    }

    func testAnEndlessBodyOrEndlessHeadersGiveAClearErrorNotAHang() throws {
        try signIn()
        let (server, _) = try server { request in
            switch request.path {
            case "/endless": .respondEndlessBody()
            case "/stalled": .stallMidHead()
            default: .respondEndlessHead()
            }
        }
        defer { server.stop() }
        let endless = try rest([
            "--scope", "User.Read", "--max-response-size", "100000",
            server.baseURL.appendingPathComponent("endless").absoluteString,
        ])
        XCTAssertEqual(endless.status, 4, endless.errorOutput)
        XCTAssertTrue(endless.errorOutput.contains("100000"), endless.errorOutput)
        XCTAssertTrue(endless.errorOutput.contains("--max-response-size"), endless.errorOutput)
        XCTAssertFalse(endless.errorOutput.contains("check the network"), endless.errorOutput)
        XCTAssertEqual(endless.output, "")
        let head = try rest(["--scope", "User.Read", server.baseURL.appendingPathComponent("head").absoluteString])
        XCTAssertEqual(head.status, 4, head.errorOutput)
        XCTAssertTrue(head.errorOutput.contains("-1103"), head.errorOutput)
        let stalled = try rest([
            "--scope", "User.Read", "--timeout", "1", server.baseURL.appendingPathComponent("stalled").absoluteString,
        ])
        XCTAssertEqual(stalled.status, 124, stalled.errorOutput)
    }
}
