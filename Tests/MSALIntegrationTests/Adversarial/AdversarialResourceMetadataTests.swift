import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// Protected Resource Metadata (RFC 9728) read from a loopback HTTPS server through the real
/// transport: good documents, and what a hostile or careless resource can serve (another
/// resource's document, wrong types, `1e30`, oversized and endless bodies, redirections, plain
/// HTTP). Every refusal is a clear MSAL or `NSURLErrorDomain` error.
final class AdversarialResourceMetadataTests: XCTestCase {
    private var server: LoopbackHTTPSServer?
    private var plain: PlainListener?
    private let seen = Locked([String]())

    override func tearDown() {
        server?.stop()
        plain?.stop()
        MSALGlobalConfig.httpConfig.maximumResponseBodySize = 1_048_576
    }

    /// A fetcher over a server answering `answer`, with the requested targets recorded.
    private func serve(_ answer: @escaping @Sendable (HTTPServerRequest, URL) -> HTTPServerAction) throws
        -> (ProtectedResourceMetadataFetcher, URL)
    {
        let base = Locked<URL?>(nil)
        let seen = seen
        let server = try LoopbackHTTPSServer { request in
            seen.withLock { $0.append(request.target) }
            return answer(request, base.withLock { $0 }!)
        }
        base.withLock { $0 = server.baseURL }
        self.server = server
        let transport = CurlHTTPTransport(
            configuration: .init(
                caFile: server.certificateAuthority.certificateFile, retryPolicy: RetryPolicy(retryCount: 0)))
        return (ProtectedResourceMetadataFetcher(transport: transport, plainHTTPOrigins: []), server.baseURL)
    }

    private static func document(_ resource: String, servers: [String] = ["https://login.microsoftonline.com/t/v2.0"])
        -> HTTPServerAction
    {
        .respond(.json(["resource": resource, "authorization_servers": servers, "scopes_supported": ["mcp:tools"]]))
    }

    private func fetchError(
        _ fetcher: ProtectedResourceMetadataFetcher, _ resource: URL, metadataURL: URL? = nil
    ) async -> NSError? {
        do {
            _ = try await fetcher.fetch(resource: resource, metadataURL: metadataURL, correlationId: UUID())
            XCTFail("the fetch succeeded")
            return nil
        } catch {
            return error as NSError
        }
    }

    func testWellKnownPathIsInsertedAndTheDocumentRead() async throws {
        let (fetcher, base) = try serve { request, base in
            request.path == "/.well-known/oauth-protected-resource/mcp"
                ? Self.document(base.absoluteString + "/mcp") : .respond(.text(status: 404, "no"))
        }
        let resource = base.appendingPathComponent("mcp")
        let metadata = try await fetcher.fetch(resource: resource, metadataURL: nil, correlationId: UUID())
        XCTAssertEqual(metadata.resource, resource.absoluteString)
        XCTAssertEqual(metadata.authorizationServers, ["https://login.microsoftonline.com/t/v2.0"])
        XCTAssertEqual(seen.withLock { $0 }, ["/.well-known/oauth-protected-resource/mcp"])
        let plan = try ResourceAccessDecision.plan(
            metadata: metadata, resource: resource, challengeScopes: [],
            configured: try Authority.aad("https://login.microsoftonline.com/common"))
        XCTAssertEqual(plan.scopes, [resource.absoluteString + "/.default"])
        XCTAssertEqual(plan.authority.urlString, "https://login.microsoftonline.com/t")
    }

    func testTheChallengesResourceMetadataURLIsUsed() async throws {
        let (fetcher, base) = try serve { request, base in
            request.path == "/meta/prm.json" ? Self.document(base.absoluteString) : .respond(.text(status: 404, "no"))
        }
        let metadata = try await fetcher.fetch(
            resource: base, metadataURL: base.appendingPathComponent("meta/prm.json"), correlationId: UUID())
        XCTAssertEqual(metadata.resource, base.absoluteString)
        XCTAssertEqual(seen.withLock { $0 }, ["/meta/prm.json"])
    }

    /// RFC 9728 §3.3: a document naming another resource (copied from elsewhere) is refused.
    func testAnotherResourcesDocumentIsRefused() async throws {
        let (fetcher, base) = try serve { _, _ in Self.document("https://api.example.com/mcp") }
        let error = await fetchError(fetcher, base.appendingPathComponent("mcp"))
        XCTAssertEqual(error?.userInfo[MSALInternalErrorCodeKey] as? Int, -42_600)
        XCTAssertTrue(
            error?.localizedDescription.contains("names another resource") == true, "\(String(describing: error))")
    }

    func testWrongTypesAndHugeNumbersAreRefusedOrIgnored() async throws {
        let body = Locked("")
        let (fetcher, base) = try serve { _, _ in .respond(.json(data: Data(body.withLock { $0 }.utf8))) }
        let resource = base.absoluteString
        for (json, member) in [
            (#"{"resource":1e30}"#, "resource"),
            (#"{"resource":"\#(resource)","authorization_servers":[1e30]}"#, "authorization_servers"),
            (#"{"resource":"\#(resource)","authorization_servers":"https://a"}"#, "authorization_servers"),
            (#"["\#(resource)"]"#, "a JSON object"),
        ] {
            body.withLock { $0 = json }
            let error = await fetchError(fetcher, base)
            XCTAssertEqual(error?.userInfo[MSALInternalErrorCodeKey] as? Int, -42_600, json)
            XCTAssertTrue(error?.localizedDescription.contains(member) == true, "\(String(describing: error))")
        }
        body.withLock { $0 = #"{"resource":"\#(resource)","expires_in":1e30,"x":-1e400,"authorization_servers":[]}"# }
        let metadata = try await fetcher.fetch(resource: base, metadataURL: nil, correlationId: UUID())
        XCTAssertEqual(metadata.authorizationServers, [], "members the library does not read are ignored")
    }

    func testOversizedAndEndlessBodiesAreRefused() async throws {
        let mode = Locked(0)
        let (fetcher, base) = try serve { _, base in
            switch mode.withLock({ $0 }) {
            case 0: .respondOversizedBody(bytes: 200_000_000)
            case 1: .respondEndlessBody()
            default:
                .respond(
                    .json(
                        data: Data(
                            (#"{"resource":"\#(base.absoluteString)","pad":""#
                                + String(repeating: "x", count: 100_000) + #""}"#).utf8)))
            }
        }
        for step in 0...1 {
            mode.withLock { $0 = step }
            let error = await fetchError(fetcher, base)
            XCTAssertEqual(error?.domain, NSURLErrorDomain, "step \(step)")
            XCTAssertEqual(error?.code, -1103, "step \(step)")
        }
        mode.withLock { $0 = 2 }
        let error = await fetchError(fetcher, base)
        XCTAssertEqual(error?.userInfo[MSALInternalErrorCodeKey] as? Int, -42_600)
        XCTAssertTrue(error?.localizedDescription.contains("over the limit of 65536") == true)
    }

    /// A redirection is not followed: the target is never asked, the status is reported.
    func testRedirectionsAreNotFollowed() async throws {
        let (fetcher, base) = try serve { request, base in
            request.path.hasPrefix("/elsewhere")
                ? Self.document(base.absoluteString) : .respond(.redirect(to: base.absoluteString + "/elsewhere"))
        }
        let error = await fetchError(fetcher, base)
        XCTAssertEqual(error?.userInfo[MSALInternalErrorCodeKey] as? Int, -42_007)
        XCTAssertEqual(error?.userInfo[MSALHTTPResponseCodeKey] as? String, "302")
        XCTAssertEqual(seen.withLock { $0 }, ["/.well-known/oauth-protected-resource"])
    }

    /// Plain HTTP: neither a resource nor a metadata URL on a plain listener is fetched.
    func testPlainHTTPIsNeverFetched() async throws {
        let plain = try PlainListener()
        self.plain = plain
        let (fetcher, base) = try serve { _, base in Self.document(base.absoluteString) }
        let resourceError = await fetchError(fetcher, try XCTUnwrap(URL(string: plain.baseURL + "/mcp")))
        XCTAssertEqual(resourceError?.userInfo[MSALInternalErrorCodeKey] as? Int, -42_000)
        let metadataError = await fetchError(
            fetcher, base, metadataURL: try XCTUnwrap(URL(string: plain.baseURL + "/.well-known/x")))
        XCTAssertEqual(metadataError?.userInfo[MSALInternalErrorCodeKey] as? Int, -42_600)
        XCTAssertTrue(metadataError?.localizedDescription.contains("is not an https URL") == true)
        XCTAssertEqual(plain.connections, 0, "nothing reached the plain listener")
        XCTAssertTrue(seen.withLock { $0 }.isEmpty)
    }

    func testErrorStatusIsReported() async throws {
        let (fetcher, base) = try serve { _, _ in .respond(.text(status: 404, "not here")) }
        let error = await fetchError(fetcher, base)
        XCTAssertEqual(error?.userInfo[MSALInternalErrorCodeKey] as? Int, -42_007)
        XCTAssertEqual(error?.userInfo[MSALHTTPResponseCodeKey] as? String, "404")
    }
}
