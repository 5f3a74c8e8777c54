import Dispatch
import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// Options of the application and the requests: family refresh tokens across apps, client
/// capabilities in claims, instance-aware sign-in across clouds, completion queues.
final class ApplicationOptionsTests: XCTestCase {
    private var emulator: EntraEmulator!

    override func setUpWithError() throws {
        emulator = try EmulatedApp.makeEmulator { configuration in
            let gov = EmulatorTenant(
                id: "3c1d5e7f-9a2b-4c4d-8e6f-0a1b2c3d4e5f", domains: ["contosogov.onmicrosoft.us"],
                cloudHost: "login.microsoftonline.us")
            configuration.tenants.append(gov)
            configuration.users.append(
                EmulatorUser(
                    username: "grace@contosogov.onmicrosoft.us", displayName: "Grace",
                    objectId: "4d2e6f80-1b3c-4d5e-9f70-1a2b3c4d5e6f", homeTenantId: gov.id))
        }
    }

    override func tearDown() {
        emulator.stop()
    }

    func testFamilyRefreshTokenSignsInASiblingAppAndClientMismatchLeavesTheFamily() async throws {
        try await familySiblingThenClientMismatch(siblingTokenIsNewer: false)
    }

    /// The sibling's own refresh token, stored later (another second), is then the newest family
    /// token too: it is the only one tried, and its `client_mismatch` still leaves the family.
    func testClientMismatchOnTheAppsOwnFamilyTokenLeavesTheFamilyToo() async throws {
        try await familySiblingThenClientMismatch(siblingTokenIsNewer: true)
    }

    private func familySiblingThenClientMismatch(siblingTokenIsNewer: Bool) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("msal-foci-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cache.json")
        func app(_ client: EmulatorClient) throws -> EmulatedApp {
            try EmulatedApp(emulator: emulator, clientId: client.clientId) { config in
                config.cacheConfig.inMemoryOnly = false
                config.cacheConfig.cacheFileURL = file
            }
        }
        let one = try app(.familyAppOne)
        _ = try await one.signIn()
        let two = try app(.familyAppTwo)
        if siblingTokenIsNewer { two.advance(by: 5) }
        let account = try XCTUnwrap(try two.application.allAccounts().first, "signed in through the family token")
        let sibling = try await two.application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
        XCTAssertFalse(sibling.accessToken.isEmpty)
        XCTAssertEqual(
            emulator.recentRequests(to: .token).last?.formItems.first { $0.name == "client_id" }?.value,
            EmulatorClient.familyAppTwo.clientId)

        // The server says the family token may not be used by this app any more.
        emulator.inject(.invalidGrant(suberror: "client_mismatch"), at: .token, count: 2, grantType: .refreshToken)
        let parameters = MSALSilentTokenParameters(scopes: ["Mail.Read"], account: account)
        await assertFailure(code: MSALError.interactionRequired.rawValue) {
            _ = try await two.application.acquireTokenSilent(with: parameters)
        }
        let familyId = try await two.application.context.cache.read { store in
            store.familyId(environments: ["login.windows.net"], clientId: EmulatorClient.familyAppTwo.clientId)
        }
        XCTAssertEqual(familyId, "", "app metadata records the app left the family")
    }

    func testClientCapabilitiesAreSentAsXmsCcClaims() async throws {
        let app = try EmulatedApp(emulator: emulator) { $0.clientApplicationCapabilities = ["cp1"] }
        _ = try await app.signIn()
        let claims = emulator.recentRequests(to: .authorize).last?.queryItems.first { $0.name == "claims" }?.value
        XCTAssertEqual(claims, #"{"access_token":{"xms_cc":{"values":["cp1"]}}}"#)
        let tokenClaims = emulator.recentRequests(to: .token).last?.formItems.first { $0.name == "claims" }?.value
        XCTAssertEqual(tokenClaims, claims)
    }

    func testInstanceAwareSignInMovesToTheUsersCloud() async throws {
        let app = try EmulatedApp(emulator: emulator) { $0.multipleCloudsSupported = true }
        emulator.defaultUsername = "grace@contosogov.onmicrosoft.us"
        let result = try await app.signIn()
        XCTAssertEqual(
            emulator.recentRequests(to: .authorize).last?.queryItems.first { $0.name == "instance_aware" }?.value,
            "true")
        XCTAssertEqual(emulator.recentRequests(to: .token).last?.host, "login.microsoftonline.us")
        XCTAssertEqual(result.account.environment, "login.microsoftonline.us")
        XCTAssertEqual(result.authority.url.host, "login.microsoftonline.us")
    }

    func testCompletionBlocksRunOnTheRequestedQueue() async throws {
        let app = try EmulatedApp(emulator: emulator)
        let first = try await app.signIn()
        let queue = DispatchQueue(label: "com.example.completions")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: first.account)
        parameters.completionBlockQueue = queue
        let done = expectation(description: "completion")
        app.application.acquireTokenSilent(with: parameters) { result, error in
            XCTAssertEqual(DispatchQueue.getSpecific(key: key), true)
            XCTAssertNotNil(result)
            XCTAssertNil(error)
            done.fulfill()
        }
        await fulfillment(of: [done], timeout: 10)
    }
}
