import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// ``MSALPublicClientApplication/protectedResourceMetadata(forResource:challenge:)`` through an
/// application's own transport and trust: a resource on loopback HTTPS (certified by the
/// emulator's authority, which the app trusts) describing itself per RFC 9728.
final class ProtectedResourceMetadataTests: XCTestCase {
    private var emulator: EntraEmulator!
    private var app: EmulatedApp!
    private var resourceServer: LoopbackHTTPSServer!
    private let document = Locked([String: Any]())
    private let paths = Locked([String]())

    override func setUpWithError() throws {
        emulator = try EmulatedApp.makeEmulator()
        app = try EmulatedApp(emulator: emulator)
        let document = document
        let paths = paths
        resourceServer = try LoopbackHTTPSServer(certificateAuthority: emulator.certificateAuthority) { request in
            paths.withLock { $0.append(request.path) }
            return .respond(.json(document.withLock { $0 }))
        }
    }

    override func tearDown() {
        resourceServer.stop()
        emulator.stop()
    }

    private var resource: URL { resourceServer.baseURL.appendingPathComponent("mcp") }

    func testAnEntraProtectedResourceGivesItsTenantAndDotDefault() async throws {
        let tenant = EmulatorTenant.contoso.id
        document.withLock {
            $0 = [
                "resource": self.resource.absoluteString,
                "authorization_servers": ["https://login.microsoftonline.com/\(tenant)/v2.0"],
            ]
        }
        let metadata = try await app.application.protectedResourceMetadata(forResource: resource)
        XCTAssertEqual(paths.withLock { $0 }, ["/.well-known/oauth-protected-resource/mcp"])
        XCTAssertTrue(metadata.isMicrosoftEntra)
        XCTAssertTrue(metadata.authority is MSALAADAuthority)
        XCTAssertEqual(metadata.authority.url.absoluteString, "https://login.microsoftonline.com/\(tenant)")
        XCTAssertEqual(metadata.scopes, [resource.absoluteString + "/.default"])
        XCTAssertNil(metadata.resourceIndicator)
        XCTAssertEqual(metadata.resource, resource.absoluteString)
    }

    func testAnotherServerGetsAnOIDCAuthorityAndTheResourceIndicator() async throws {
        document.withLock {
            $0 = [
                "resource": self.resource.absoluteString,
                "authorization_servers": ["https://as.example.com/realms/mcp"],
                "scopes_supported": ["mcp:tools", "mcp:resources"],
            ]
        }
        let challenge = try MSALWWWAuthenticateParameters(headerValues: [
            #"Bearer resource_metadata="\#(resourceServer.baseURL.absoluteString)/prm", scope="mcp:tools""#
        ])
        let metadata = try await app.application.protectedResourceMetadata(forResource: resource, challenge: challenge)
        XCTAssertEqual(paths.withLock { $0 }, ["/prm"], "the challenge's resource_metadata URL")
        XCTAssertFalse(metadata.isMicrosoftEntra)
        XCTAssertTrue(metadata.authority is MSALOIDCAuthority)
        XCTAssertEqual(metadata.authority.url.absoluteString, "https://as.example.com/realms/mcp")
        XCTAssertEqual(metadata.scopes, ["mcp:tools"])
        XCTAssertEqual(metadata.scopesSupported, ["mcp:tools", "mcp:resources"])
        XCTAssertEqual(metadata.resourceIndicator, resource.absoluteString)
    }

    func testRefusalsReachTheAppAsMSALErrors() async throws {
        document.withLock {
            $0 = ["resource": "https://other.example.com/mcp", "authorization_servers": ["https://as.example.com"]]
        }
        await assertFailure(code: MSALError.internal.rawValue, internalCode: -42_600) {
            _ = try await self.app.application.protectedResourceMetadata(forResource: self.resource)
        }
        document.withLock {
            $0 = ["resource": self.resource.absoluteString, "authorization_servers": ["http://as.example.com"]]
        }
        let error = await assertFailure(code: MSALError.internal.rawValue, internalCode: -42_600) {
            _ = try await self.app.application.protectedResourceMetadata(forResource: self.resource)
        }
        XCTAssertTrue(error?.localizedDescription.contains("names no https authorization server") == true)
        await assertFailure(code: MSALError.internal.rawValue, internalCode: -42_000) {
            _ = try await self.app.application.protectedResourceMetadata(
                forResource: try XCTUnwrap(URL(string: "http://127.0.0.1:1/mcp")))
        }
    }

    func testCompletionBlockForm() async throws {
        document.withLock {
            $0 = [
                "resource": self.resource.absoluteString,
                "authorization_servers": ["https://login.microsoftonline.com/common/v2.0"],
            ]
        }
        let done = expectation(description: "completion")
        let scopes = Locked<[String]?>(nil)
        app.application.protectedResourceMetadata(forResource: resource) { metadata, error in
            XCTAssertNil(error)
            scopes.withLock { $0 = metadata?.scopes }
            done.fulfill()
        }
        await fulfillment(of: [done], timeout: 30)
        XCTAssertEqual(scopes.withLock { $0 }, [resource.absoluteString + "/.default"])
    }
}
