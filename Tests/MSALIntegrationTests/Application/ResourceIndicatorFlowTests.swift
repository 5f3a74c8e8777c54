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

        // Silent without an indicator: the cache answers. With one: always a refresh, with it.
        let tokens = emulator.requestCount(.token)
        let plain = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
        _ = try await app.application.acquireTokenSilent(with: plain)
        XCTAssertEqual(emulator.requestCount(.token), tokens)
        let indicated = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
        indicated.resourceIndicator = resource
        _ = try await app.application.acquireTokenSilent(with: indicated)
        XCTAssertEqual(emulator.requestCount(.token), tokens + 1)
        let refresh = try XCTUnwrap(emulator.recentRequests(to: .token).last)
        XCTAssertEqual(refresh.formValue("grant_type"), "refresh_token")
        XCTAssertEqual(refresh.formItems.first { $0.name == "resource" }?.value, resource)
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
