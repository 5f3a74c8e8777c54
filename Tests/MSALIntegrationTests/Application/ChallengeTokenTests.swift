import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// ``MSALPublicClientApplication/acquireToken(forChallenge:with:)`` against the Entra emulator:
/// a resource's 401 challenge answered silently, or the -50002 the app turns into an interactive
/// call with the challenge's claims.
final class ChallengeTokenTests: XCTestCase {
    private var emulator: EntraEmulator!
    private var app: EmulatedApp!
    private let claims = #"{"access_token":{"nbf":{"essential":true,"value":"1604106651"}}}"#

    override func setUpWithError() throws {
        emulator = try EmulatedApp.makeEmulator()
        app = try EmulatedApp(emulator: emulator) { $0.clientApplicationCapabilities = ["cp1"] }
    }

    override func tearDown() {
        emulator.stop()
    }

    /// What Microsoft Entra resources send under Continuous Access Evaluation.
    private func caeChallenge(authorizationURI: String = "https://login.microsoftonline.com/common/oauth2/authorize")
        throws -> MSALWWWAuthenticateParameters
    {
        try MSALWWWAuthenticateParameters(headerValues: [
            #"Bearer realm="", authorization_uri="\#(authorizationURI)", error="insufficient_claims", "#
                + #"claims="\#(Data(claims.utf8).base64EncodedString())""#
        ])
    }

    private func lastTokenClaims() -> String? {
        emulator.recentRequests(to: .token).last?.formItems.first { $0.name == "claims" }?.value
    }

    func testAClaimsChallengeIsAnsweredSilentlyWithClaimsAndCapabilities() async throws {
        let first = try await app.signIn()
        let cached = try await app.application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: ["User.Read"], account: first.account))
        XCTAssertEqual(cached.accessToken, first.accessToken, "the cache answers a plain silent call")
        let refreshes = emulator.tokenRequestCount(grantType: .refreshToken)

        let result = try await app.application.acquireToken(
            forChallenge: try caeChallenge(),
            with: MSALSilentTokenParameters(scopes: ["User.Read"], account: first.account))
        XCTAssertNotEqual(result.accessToken, first.accessToken, "the cached token was skipped")
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken), refreshes + 1)
        XCTAssertEqual(
            lastTokenClaims(),
            #"{"access_token":{"nbf":{"essential":true,"value":"1604106651"},"xms_cc":{"values":["cp1"]}}}"#,
            "the challenge's claims merged with the client capabilities")

        // Cached like any other token: a plain silent call now returns it.
        let after = try await app.application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: ["User.Read"], account: first.account))
        XCTAssertEqual(after.accessToken, result.accessToken)
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken), refreshes + 1)
    }

    func testInvalidTokenSkipsTheCacheAndInsufficientScopeDoesNot() async throws {
        let first = try await app.signIn()
        let refreshes = emulator.tokenRequestCount(grantType: .refreshToken)
        let scopeChallenge = try MSALWWWAuthenticateParameters(headerValues: [
            #"Bearer error="insufficient_scope", scope="User.Read""#
        ])
        let fromCache = try await app.application.acquireToken(
            forChallenge: scopeChallenge, with: MSALSilentTokenParameters(scopes: [], account: first.account))
        XCTAssertEqual(fromCache.accessToken, first.accessToken, "the challenge's scope, answered from the cache")
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken), refreshes)

        let refused = try MSALWWWAuthenticateParameters(headerValues: [#"Bearer error="invalid_token""#])
        let fresh = try await app.application.acquireToken(
            forChallenge: refused, with: MSALSilentTokenParameters(scopes: ["User.Read"], account: first.account))
        XCTAssertNotEqual(fresh.accessToken, first.accessToken)
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken), refreshes + 1)
        XCTAssertEqual(lastTokenClaims(), #"{"access_token":{"xms_cc":{"values":["cp1"]}}}"#, "capabilities only")
    }

    /// The server wants interaction: -50002 with the claims for the interactive call, which then
    /// sends them on the authorize and token requests.
    func testInteractionRequiredCarriesTheClaimsForTheInteractiveCall() async throws {
        let first = try await app.signIn()
        emulator.inject(.claimsChallenge(claims), at: .token, count: 1, grantType: .refreshToken)
        let error = await assertFailure(code: MSALError.interactionRequired.rawValue) {
            _ = try await self.app.application.acquireToken(
                forChallenge: try self.caeChallenge(),
                with: MSALSilentTokenParameters(scopes: ["User.Read"], account: first.account))
        }
        let passed = try XCTUnwrap(error?.userInfo[MSALClaimsChallengeKey] as? String)
        XCTAssertEqual(passed, claims)

        let result = try await app.signIn { $0.claimsRequest = try? MSALClaimsRequest(jsonString: passed) }
        XCTAssertFalse(result.accessToken.isEmpty)
        let authorizeClaims =
            emulator.recentRequests(to: .authorize).last?.queryItems.first { $0.name == "claims" }?.value
        XCTAssertEqual(
            authorizeClaims,
            #"{"access_token":{"nbf":{"essential":true,"value":"1604106651"},"xms_cc":{"values":["cp1"]}}}"#)
    }

    /// A challenge naming another host cannot move the refresh token there.
    func testAChallengeNamingAnotherHostIsIgnored() async throws {
        let first = try await app.signIn()
        let challenge = try caeChallenge(authorizationURI: "https://login.evil.example/contoso/oauth2/authorize")
        XCTAssertEqual(challenge.authority?.absoluteString, "https://login.evil.example/contoso")
        _ = try await app.application.acquireToken(
            forChallenge: challenge, with: MSALSilentTokenParameters(scopes: ["User.Read"], account: first.account))
        XCTAssertEqual(emulator.recentRequests(to: .token).last?.host, "login.microsoftonline.com")
    }

    func testNoScopeAnywhereIsAnInvalidParameter() async throws {
        let first = try await app.signIn()
        await assertFailure(code: MSALError.internal.rawValue, internalCode: -42_000) {
            _ = try await self.app.application.acquireToken(
                forChallenge: try MSALWWWAuthenticateParameters(headerValues: ["Bearer error=invalid_token"]),
                with: MSALSilentTokenParameters(scopes: [], account: first.account))
        }
    }

    func testCompletionBlockForm() async throws {
        let first = try await app.signIn()
        let challenge = try caeChallenge()
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: first.account)
        let done = expectation(description: "completion")
        let token = Locked<String?>(nil)
        app.application.acquireToken(forChallenge: challenge, with: parameters) { result, error in
            XCTAssertNil(error)
            token.withLock { $0 = result?.accessToken }
            done.fulfill()
        }
        await fulfillment(of: [done], timeout: 30)
        XCTAssertNotNil(token.withLock { $0 })
        XCTAssertNotEqual(token.withLock { $0 }, first.accessToken)
    }
}
