import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// The round trip an app makes against a protected API: call, 401 with a challenge, a token that
/// answers it, call again; against MSALTestSupport's ``EmulatedProtectedResource`` and the Entra
/// emulator, through the real transport.
final class ProtectedResourceRoundTripTests: XCTestCase {
    private var emulator: EntraEmulator!
    private var app: EmulatedApp!
    private var resource: EmulatedProtectedResource!
    private var client: CurlHTTPTransport!

    override func setUpWithError() throws {
        emulator = try EmulatedApp.makeEmulator()
        app = try EmulatedApp(emulator: emulator) { $0.clientApplicationCapabilities = ["cp1"] }
        resource = try EmulatedProtectedResource(emulator: emulator)
        client = CurlHTTPTransport(
            configuration: .init(
                caFile: emulator.certificateAuthority.certificateFile, retryPolicy: RetryPolicy(retryCount: 0)))
    }

    override func tearDown() {
        resource.stop()
        emulator.stop()
    }

    private func callMe(_ token: String?) async throws -> HTTPResponse {
        let headers = token.map { [(name: "Authorization", value: "Bearer \($0)")] } ?? []
        return try await client.send(HTTPRequest(url: resource.meURL, headers: headers))
    }

    func testCallChallengeTokenWithTheClaimsCallAgain() async throws {
        let first = try await app.signIn()
        let ok = try await callMe(first.accessToken)
        XCTAssertEqual(ok.statusCode, 200)
        let me = try XCTUnwrap(try JSONSerialization.jsonObject(with: ok.body) as? [String: Any])
        XCTAssertEqual(me["userPrincipalName"] as? String, first.account.username)

        // A revocation event: tokens issued until now are challenged.
        app.advance(by: 60)
        resource.requireTokens(issuedAtOrAfter: emulator.now)
        let refused = try await callMe(first.accessToken)
        XCTAssertEqual(refused.statusCode, 401)
        let header = try XCTUnwrap(refused.headers["WWW-Authenticate"])
        let challenge = try MSALWWWAuthenticateParameters(headerValues: [header])
        XCTAssertTrue(challenge.isClaimsChallenge)
        XCTAssertEqual(challenge.error, "insufficient_claims")
        XCTAssertEqual(challenge.authority?.absoluteString, "https://login.microsoftonline.com/common")

        // A plain silent call still returns the refused token from the cache...
        let cached = try await app.application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: ["User.Read"], account: first.account))
        XCTAssertEqual(cached.accessToken, first.accessToken)
        // ...the challenge gets a new one, with the claims, and the call succeeds.
        let answered = try await app.application.acquireToken(
            forChallenge: challenge, with: MSALSilentTokenParameters(scopes: ["User.Read"], account: first.account))
        XCTAssertNotEqual(answered.accessToken, first.accessToken)
        let sentClaims = emulator.recentRequests(to: .token).last?.formItems.first { $0.name == "claims" }?.value
        XCTAssertTrue(sentClaims?.contains(#""nbf":{"essential":true,"value":""#) == true, "\(sentClaims ?? "")")
        let retried = try await callMe(answered.accessToken)
        XCTAssertEqual(retried.statusCode, 200)
        XCTAssertEqual(resource.acceptedRequests, 2)
        XCTAssertEqual(resource.challengedRequests, 1)
    }

    func testTheResourceRefusesWhatItMust() async throws {
        let first = try await app.signIn()
        let missing = try await callMe(nil)
        XCTAssertEqual(missing.statusCode, 401)
        XCTAssertEqual(
            try MSALWWWAuthenticateParameters(headerValues: [try XCTUnwrap(missing.headers["WWW-Authenticate"])]).error,
            "invalid_token")

        // A token whose payload was changed: the signature no longer matches.
        var parts = first.accessToken.split(separator: ".").map(String.init)
        var payload = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(try XCTUnwrap(Base64URL.decode(parts[1])))) as? [String: Any])
        payload["scp"] = "User.Read Mail.Send"
        parts[1] = Base64URL.encode(try JSONSerialization.data(withJSONObject: payload))
        let forged = try await callMe(parts.joined(separator: "."))
        XCTAssertEqual(forged.statusCode, 401)

        // Another resource's token, then an expired one.
        let other = try await app.application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: ["api://contoso-api/access_as_user"], account: first.account))
        let otherAnswer = try await callMe(other.accessToken)
        XCTAssertEqual(otherAnswer.statusCode, 401)
        app.advance(by: 2 * 86_400)
        let expired = try await callMe(first.accessToken)
        XCTAssertEqual(expired.statusCode, 401)
        XCTAssertTrue(expired.headers["WWW-Authenticate"]?.contains("expired") == true)
        XCTAssertEqual(resource.acceptedRequests, 0)
    }

    func testAMissingScopeIsForbiddenWithTheScopeNamed() async throws {
        let strict = try EmulatedProtectedResource(emulator: emulator, requiredScope: "Mail.Read")
        defer { strict.stop() }
        let first = try await app.signIn()
        let answer = try await client.send(
            HTTPRequest(url: strict.meURL, headers: [(name: "Authorization", value: "Bearer \(first.accessToken)")]))
        XCTAssertEqual(answer.statusCode, 403)
        let challenge = try MSALWWWAuthenticateParameters(
            headerValues: [try XCTUnwrap(answer.headers["WWW-Authenticate"])])
        XCTAssertEqual(challenge.error, "insufficient_scope")
        XCTAssertEqual(challenge.scopes, ["https://graph.microsoft.com/Mail.Read"])
        let token = try await app.application.acquireToken(
            forChallenge: challenge, with: MSALSilentTokenParameters(scopes: [], account: first.account))
        let again = try await client.send(
            HTTPRequest(url: strict.meURL, headers: [(name: "Authorization", value: "Bearer \(token.accessToken)")]))
        XCTAssertEqual(again.statusCode, 200)
    }

    /// An MCP-style resource (RFC 9728): 401 naming its metadata, the metadata naming an Entra
    /// tenant, a token for `<resource>/.default` from that tenant, and the call succeeds.
    func testAnMCPStyleResourceThroughItsProtectedResourceMetadata() async throws {
        let tenant = EmulatorTenant.contoso.id
        let mcp = try EmulatedProtectedResource.mcp(
            emulator: emulator,
            authorizationServer: try XCTUnwrap(URL(string: "https://login.microsoftonline.com/\(tenant)/v2.0")),
            requiredScope: "mcp.tools")
        defer { mcp.stop() }
        var client = EmulatorClient.sample
        client.permissions[mcp.audience] = ["mcp.tools"]
        emulator.add(client: client)
        let first = try await app.signIn()

        let refused = try await self.client.send(HTTPRequest(url: mcp.resourceURL))
        XCTAssertEqual(refused.statusCode, 401)
        let challenge = try MSALWWWAuthenticateParameters(
            headerValues: [try XCTUnwrap(refused.headers["WWW-Authenticate"])])
        XCTAssertEqual(
            challenge.resourceMetadataURL?.absoluteString,
            mcp.baseURL.absoluteString + "/.well-known/oauth-protected-resource/mcp")
        XCTAssertNil(challenge.authority, "an MCP-style resource names its metadata, not an authority")

        let metadata = try await app.application.protectedResourceMetadata(
            forResource: mcp.resourceURL, challenge: challenge)
        XCTAssertTrue(metadata.isMicrosoftEntra)
        XCTAssertEqual(metadata.scopes, [mcp.audience + "/.default"])
        XCTAssertEqual(metadata.authority.url.absoluteString, "https://login.microsoftonline.com/\(tenant)")

        let parameters = MSALSilentTokenParameters(scopes: metadata.scopes, account: first.account)
        parameters.authority = metadata.authority
        let token = try await app.application.acquireTokenSilent(with: parameters)
        let sent = try XCTUnwrap(emulator.recentRequests(to: .token).last)
        XCTAssertTrue(sent.path.hasPrefix("/\(tenant)/"), sent.path)
        XCTAssertNil(sent.formItems.first { $0.name == "resource" }, "Entra gets no RFC 8707 resource")
        let answer = try await self.client.send(
            HTTPRequest(url: mcp.resourceURL, headers: [(name: "Authorization", value: "Bearer \(token.accessToken)")]))
        XCTAssertEqual(answer.statusCode, 200)
        XCTAssertEqual(mcp.acceptedRequests, 1)

        // The Graph-like resource refuses this token: it is for another audience.
        let graph = try await callMe(token.accessToken)
        XCTAssertEqual(graph.statusCode, 401)
    }
}
