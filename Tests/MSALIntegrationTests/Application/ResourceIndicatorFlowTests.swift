import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// RFC 8707 `resource` on the wire: an app signed in to an OpenID Connect issuer (the emulator's)
/// sends ``MSALTokenParameters/resourceIndicator`` on the authorize and token requests, and a
/// Microsoft Entra app is refused before anything is sent.
final class ResourceIndicatorFlowTests: XCTestCase {
    private var emulator: EntraEmulator!
    private let resource = "https://mcp.example.com/mcp"

    override func setUpWithError() throws {
        emulator = try EmulatedApp.makeEmulator()
    }

    override func tearDown() {
        emulator.stop()
    }

    func testAnOIDCAppSendsTheResourceOnAuthorizeTokenAndRefresh() async throws {
        let issuer = emulator.authority(.oidc(EmulatorTenant.contoso.id))
        let app = try EmulatedApp(emulator: emulator, authority: issuer) {
            $0.authority = try MSALOIDCAuthority(issuer: issuer)
        }
        let signedIn = try await app.signIn(["User.Read"]) { $0.resourceIndicator = self.resource }
        let authorize = try XCTUnwrap(emulator.recentRequests(to: .authorize).last)
        XCTAssertEqual(authorize.queryItems.first { $0.name == "resource" }?.value, resource)
        let code = try XCTUnwrap(emulator.recentRequests(to: .token).last)
        XCTAssertEqual(code.formItems.first { $0.name == "resource" }?.value, resource)

        // Silent with the same indicator: the token cached for it, no request.
        let tokens = emulator.requestCount(.token)
        let indicated = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
        indicated.resourceIndicator = resource
        let again = try await app.application.acquireTokenSilent(with: indicated)
        XCTAssertEqual(again.accessToken, signedIn.accessToken)
        XCTAssertEqual(emulator.requestCount(.token), tokens)
        // Without an indicator: not that token (it is for the resource), one refresh, then cached.
        let plain = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
        let unnamed = try await app.application.acquireTokenSilent(with: plain)
        XCTAssertNotEqual(unnamed.accessToken, signedIn.accessToken)
        XCTAssertEqual(emulator.requestCount(.token), tokens + 1)
        let refresh = try XCTUnwrap(emulator.recentRequests(to: .token).last)
        XCTAssertEqual(refresh.formValue("grant_type"), "refresh_token")
        XCTAssertNil(refresh.formValue("resource"))
        _ = try await app.application.acquireTokenSilent(with: plain)
        XCTAssertEqual(emulator.requestCount(.token), tokens + 1)

        // Once expired, a refresh that names the resource, cached for it again.
        app.advance(by: 3600)
        let renewed = try await app.application.acquireTokenSilent(with: indicated)
        XCTAssertEqual(emulator.requestCount(.token), tokens + 2)
        let named = try XCTUnwrap(emulator.recentRequests(to: .token).last)
        XCTAssertEqual(named.formValue("resource"), resource)
        XCTAssertEqual(try EmulatorHarness.claims(renewed.accessToken)["aud"]?.stringValue, resource)
        _ = try await app.application.acquireTokenSilent(with: indicated)
        XCTAssertEqual(emulator.requestCount(.token), tokens + 2)
    }

    /// Two resources asked for with the same scopes: each gets its own token (its audience), the
    /// repeated calls are cache hits, and the tokens are kept where other MSALs never look (a
    /// section of our own), removed at sign-out.
    func testTokensOfTwoResourcesWithTheSameScopesNeverMix() async throws {
        let issuer = emulator.authority(.oidc(EmulatorTenant.contoso.id))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("msal-resources-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("msal_cache.json")
        let app = try EmulatedApp(emulator: emulator, authority: issuer) {
            $0.authority = try MSALOIDCAuthority(issuer: issuer)
            $0.cacheConfig.inMemoryOnly = false
            $0.cacheConfig.cacheFileURL = file
        }
        let signedIn = try await app.signIn(["User.Read"])
        let other = "https://api.example.org/"
        func silent(_ resource: String) async throws -> String {
            let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
            parameters.resourceIndicator = resource
            return try await app.application.acquireTokenSilent(with: parameters).accessToken
        }
        let before = emulator.requestCount(.token)
        let first = try await silent(resource)
        let second = try await silent(other)
        XCTAssertEqual(emulator.requestCount(.token), before + 2)
        XCTAssertEqual(try EmulatorHarness.claims(first)["aud"]?.stringValue, resource)
        XCTAssertEqual(try EmulatorHarness.claims(second)["aud"]?.stringValue, other)
        for _ in 0..<3 {
            let again = (try await silent(resource), try await silent(other))
            XCTAssertEqual(again.0, first)
            XCTAssertEqual(again.1, second)
        }
        XCTAssertEqual(emulator.requestCount(.token), before + 2, "repeated calls are cache hits")
        let plain = try await app.application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account))
        XCTAssertEqual(plain.accessToken, signedIn.accessToken, "the token without a resource is untouched")

        let document = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        let plainSection = try XCTUnwrap(document["AccessToken"] as? [String: [String: Any]])
        XCTAssertEqual(plainSection.values.compactMap { $0["secret"] as? String }, [signedIn.accessToken])
        let ours = try XCTUnwrap(document["MSALResourceAccessToken"] as? [String: [String: Any]])
        XCTAssertEqual(Set(ours.values.compactMap { $0["resource"] as? String }), [resource, other])
        XCTAssertEqual(Set(ours.values.compactMap { $0["secret"] as? String }), [first, second])

        try await app.application.signout(with: signedIn.account, signoutParameters: MSALSignoutParameters())
        let after = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        XCTAssertNil(after["MSALResourceAccessToken"], "signed out: the resource tokens are gone")
    }

    func testTheDeviceCodeFlowSendsTheResourceOnTheDeviceAndTokenRequests() async throws {
        let issuer = emulator.authority(.oidc(EmulatorTenant.contoso.id))
        let app = try EmulatedApp(emulator: emulator, authority: issuer) {
            $0.authority = try MSALOIDCAuthority(issuer: issuer)
        }
        let emulator = emulator!
        let parameters = MSALTokenParameters(scopes: ["User.Read"])
        parameters.resourceIndicator = resource
        let result = try await app.application.acquireTokenWithDeviceCode(parameters: parameters) { info in
            try? emulator.approveDeviceCode(userCode: info.userCode, as: EmulatorUser.alice.username)
        }
        XCTAssertEqual(result.account.username, EmulatorUser.alice.username)
        let device = try XCTUnwrap(emulator.recentRequests(to: .deviceCode).last)
        XCTAssertEqual(device.formValue("resource"), resource)
        let polls = emulator.recentRequests(to: .token).filter {
            $0.formValue("grant_type") == TokenRequest.deviceCodeGrantType
        }
        XCTAssertFalse(polls.isEmpty)
        XCTAssertTrue(polls.allSatisfy { $0.formValue("resource") == resource }, "every poll names the resource")

        let entra = try EmulatedApp(emulator: emulator)
        let before = emulator.requestCount(.deviceCode)
        await assertFailure(code: MSALError.internal.rawValue, internalCode: -42_000) {
            _ = try await entra.application.acquireTokenWithDeviceCode(parameters: parameters) { _ in }
        }
        XCTAssertEqual(emulator.requestCount(.deviceCode), before, "refused before asking for a code")
    }

    func testAnEntraAppRefusesAResourceIndicatorBeforeSendingAnything() async throws {
        let app = try EmulatedApp(emulator: emulator)
        let signedIn = try await app.signIn()
        let before = emulator.totalRequestCount
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
        parameters.resourceIndicator = resource
        let error = await assertFailure(code: MSALError.internal.rawValue, internalCode: -42_000) {
            _ = try await app.application.acquireTokenSilent(with: parameters)
        }
        XCTAssertTrue(error?.localizedDescription.contains("/.default") == true)
        let interactive = app.interactive(["User.Read"])
        interactive.resourceIndicator = resource
        await assertFailure(code: MSALError.internal.rawValue, internalCode: -42_000) {
            _ = try await app.application.acquireToken(with: interactive)
        }
        XCTAssertEqual(emulator.requestCount(.authorize), 1, "no second sign-in was started")
        XCTAssertLessThanOrEqual(emulator.totalRequestCount, before + 2, "at most discovery, no token request")
        XCTAssertEqual(emulator.recentRequests(to: .token).count, 1)
    }
}
