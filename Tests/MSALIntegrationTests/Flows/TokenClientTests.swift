import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

final class TokenClientTests: XCTestCase {
    private var server: LoopbackHTTPSServer?

    override func tearDown() {
        server?.stop()
    }

    /// A token client and endpoint on a fresh server answering with `answer`.
    private func serve(_ answer: @escaping @Sendable (HTTPServerRequest) -> HTTPServerAction) throws
        -> (TokenClient, URL)
    {
        let server = try LoopbackHTTPSServer(handler: answer)
        self.server = server
        let transport = CurlHTTPTransport(
            configuration: .init(
                caFile: server.certificateAuthority.certificateFile, retryPolicy: RetryPolicy(retryCount: 0)))
        return (
            TokenClient(transport: transport, now: { Date() }),
            server.baseURL.appendingPathComponent("t/oauth2/v2.0/token")
        )
    }

    private func request(_ endpoint: URL) -> TokenRequest {
        .refreshToken(
            "rt-secret", redirectURI: "http://localhost", endpoint: endpoint,
            common: .init(
                clientId: "client", scope: "User.Read openid profile offline_access", requestClientInfo: true,
                claims: #"{"access_token":{"xms_cc":{"values":["cp1"]}}}"#, extraQueryParameters: ["dc": "ESTS-PUB"]))
    }

    func testSuccessSendsTheGrantAndParsesTheTokens() async throws {
        let seen = Locked<HTTPServerRequest?>(nil)
        let (client, endpoint) = try serve({ request in
            seen.withLock { $0 = request }
            return .respond(
                .json(status: 200, data: Data(#"{"access_token":"at","expires_in":3600,"scope":"User.Read"}"#.utf8)))
        })
        let response = try await client.redeem(request(endpoint), correlationId: UUID())
        XCTAssertEqual(response.accessToken, "at")

        let sent = try XCTUnwrap(seen.withLock { $0 })
        XCTAssertEqual(sent.queryValue("dc"), "ESTS-PUB")
        XCTAssertEqual(
            sent.formItems.map(\.name),
            ["client_id", "grant_type", "refresh_token", "redirect_uri", "scope", "client_info", "claims"])
        XCTAssertEqual(sent.formValue("grant_type"), "refresh_token")
        XCTAssertEqual(sent.formValue("claims"), #"{"access_token":{"xms_cc":{"values":["cp1"]}}}"#)
    }

    func testOAuthErrorBodiesBecomeServerErrors() async throws {
        let body = Data(
            #"{"error":"invalid_grant","error_description":"AADSTS70000: bad","error_codes":[70000],"suberror":"bad_token"}"#
                .utf8)
        let (client, endpoint) = try serve({ _ in .respond(.json(status: 400, data: body)) })
        do {
            _ = try await client.redeem(request(endpoint), correlationId: UUID())
            XCTFail("expected a failure")
        } catch {
            XCTAssertEqual(error.statusCode, 400)
            XCTAssertEqual(error.serverError?.error, "invalid_grant")
            XCTAssertEqual(error.serverError?.subError, "bad_token")
            let nsError = MSALErrors.error(for: error)
            XCTAssertEqual(nsError.userInfo[MSALOAuthErrorKey] as? String, "invalid_grant")
            XCTAssertEqual(nsError.userInfo[MSALOAuthSubErrorKey] as? String, "bad_token")
            XCTAssertEqual(nsError.userInfo[MSALSTSErrorCodesKey] as? [Int], [70000])
            XCTAssertEqual(nsError.userInfo[MSALInternalErrorCodeKey] as? Int, -42004)
            XCTAssertEqual(nsError.userInfo[MSALHTTPResponseCodeKey] as? String, "400")
        }

    }

    func testOtherStatusesAreUnhandledResponsesWithRetryAfterKept() async throws {
        let (client, endpoint) = try serve({ _ in
            .respond(HTTPServerResponse(status: 429, headers: ["Retry-After": "12"], body: Data("slow down".utf8)))
        })
        do {
            _ = try await client.redeem(request(endpoint), correlationId: UUID())
            XCTFail("expected a failure")
        } catch {
            XCTAssertEqual(error.statusCode, 429)
            XCTAssertEqual(error.retryAfter, "12")
            XCTAssertNil(error.serverError)
            let nsError = MSALErrors.error(for: error)
            XCTAssertEqual(nsError.userInfo[MSALInternalErrorCodeKey] as? Int, -42007)
            XCTAssertEqual(nsError.userInfo[MSALHTTPResponseCodeKey] as? String, "429")
        }

    }

    func testMalformedSuccessIsAnInvalidResponse() async throws {
        let (client, endpoint) = try serve({ _ in .respond(.json(status: 200, data: Data("{oops".utf8))) })
        do {
            _ = try await client.redeem(request(endpoint), correlationId: UUID())
            XCTFail("expected a failure")
        } catch {
            XCTAssertEqual(MSALErrors.error(for: error).userInfo[MSALInternalErrorCodeKey] as? Int, -42600)
        }

    }
}
