import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// Discovery results kept in the cache file: a new application (a new process, for a CLI) makes
/// no discovery request while they are fresh.
final class DiscoveryPersistenceTests: XCTestCase {
    private var emulator: EntraEmulator!
    private var folder: URL!

    override func setUpWithError() throws {
        emulator = try EmulatedApp.makeEmulator()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("msal-discovery-\(UUID().uuidString)")
    }

    override func tearDown() {
        emulator.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    private func app() throws -> EmulatedApp {
        let file = folder.appendingPathComponent("cache.json")
        return try EmulatedApp(emulator: emulator) { config in
            config.cacheConfig.inMemoryOnly = false
            config.cacheConfig.cacheFileURL = file
        }
    }

    func testANewApplicationReusesPersistedDiscovery() async throws {
        let first = try app()
        let signedIn = try await first.signIn()
        XCTAssertEqual(emulator.requestCount(.instanceDiscovery), 1)
        XCTAssertEqual(emulator.requestCount(.openIDConfiguration), 1)

        for _ in 0..<3 {
            let next = try app()
            let account = try XCTUnwrap(try next.application.allAccounts().first)
            let token = try await next.application.acquireTokenSilent(
                with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
            XCTAssertEqual(token.accessToken, signedIn.accessToken)
        }
        XCTAssertEqual(emulator.requestCount(.instanceDiscovery), 1, "discovery read from the cache file")
        // The silent requests find their token with what sign-in recorded: the home tenant's
        // configuration (common is re-targeted) is fetched only when a request is to be sent.
        XCTAssertEqual(emulator.requestCount(.openIDConfiguration), 1)
        let text = try String(contentsOf: folder.appendingPathComponent("cache.json"), encoding: .utf8)
        XCTAssertTrue(text.contains("\"MSALDiscovery\""))
    }

    func testAnAuthorityOfAnotherKindIsRejectedPerRequest() async throws {
        let app = try app()
        let b2c = try MSALB2CAuthority(
            url: XCTUnwrap(URL(string: "https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/B2C_1_x")))
        await assertFailure(code: MSALError.internal.rawValue, internalCode: -42000) {
            _ = try await app.signIn { $0.authority = b2c }
        }
    }
}

final class ApplicationCreationTests: XCTestCase {
    func testInvalidConfigurationsAreRejectedWithClearErrors() {
        let empty = MSALPublicClientApplicationConfig(clientId: " ")
        XCTAssertThrowsError(try MSALPublicClientApplication(configuration: empty)) { error in
            XCTAssertEqual((error as NSError).userInfo[MSALInternalErrorCodeKey] as? Int, -42000)
        }
        let shortKey = MSALPublicClientApplicationConfig(clientId: "c")
        shortKey.cacheConfig.encryptionKey = Data(repeating: 1, count: 16)
        XCTAssertThrowsError(try MSALPublicClientApplication(configuration: shortKey)) { error in
            XCTAssertEqual((error as NSError).userInfo[MSALInternalErrorCodeKey] as? Int, -42000)
            XCTAssertTrue((error as NSError).localizedDescription.contains("16 bytes, not 32"))
        }
        let fragment = MSALPublicClientApplicationConfig(
            clientId: "c", redirectUri: "http://localhost#x", authority: nil)
        XCTAssertThrowsError(try MSALPublicClientApplication(configuration: fragment)) { error in
            XCTAssertEqual((error as NSError).userInfo[MSALInternalErrorCodeKey] as? Int, -42011)
        }
    }
}
