import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// A plain-HTTP loopback authority the app listed in knownAuthorities (an emulator, a test
/// server) is the one exception to "https only", and only for its own origin: neither instance
/// discovery nor its OpenID configuration can move requests to another plain listener.
final class AdversarialPlainAuthorityTests: XCTestCase {
    private var other: LoopbackHTTPServer!
    private var known: LoopbackHTTPServer!
    /// The OpenID configuration's token endpoint; set per test.
    private let tokenEndpoint = Locked<String?>(nil)

    override func setUpWithError() throws {
        other = try LoopbackHTTPServer { _ in .respond(.text(status: 500, "not here")) }
        let otherPort = other.port
        let tokenEndpoint = tokenEndpoint
        known = try LoopbackHTTPServer { request in
            let origin = "http://\(request.header("Host") ?? "")"
            if request.path.hasSuffix("/discovery/instance") {
                return .respond(
                    .json([
                        "tenant_discovery_endpoint": "\(origin)/common/v2.0/.well-known/openid-configuration",
                        "metadata": [
                            [
                                "preferred_network": "127.0.0.1:\(otherPort)",
                                "preferred_cache": "127.0.0.1:\(otherPort)",
                                "aliases": [request.header("Host") ?? "", "127.0.0.1:\(otherPort)"],
                            ]
                        ],
                    ]))
            }
            if request.path.hasSuffix("/.well-known/openid-configuration") {
                return .respond(
                    .json([
                        "issuer": "\(origin)/common/v2.0",
                        "authorization_endpoint": "\(origin)/common/oauth2/v2.0/authorize",
                        "token_endpoint": tokenEndpoint.withLock { $0 } ?? "\(origin)/common/oauth2/v2.0/token",
                    ]))
            }
            return .respond(.text(status: 404, "no route"))
        }
    }

    override func tearDown() {
        known.stop()
        other.stop()
    }

    private func resolve() async throws -> ResolvedAuthority {
        let authority = try Authority.aad("http://127.0.0.1:\(known.port)/common")
        let resolver = AuthorityResolver(transport: CurlHTTPTransport())
        return try await resolver.resolve(authority, knownAuthorities: [authority], correlationId: UUID())
    }

    func testInstanceDiscoveryCannotMoveAKnownPlainAuthorityToAnotherOrigin() async throws {
        let resolved = try await resolve()
        XCTAssertEqual(resolved.networkAuthority.environment, "127.0.0.1:\(known.port)", "used as configured")
        XCTAssertEqual(
            resolved.configuration.tokenEndpoint.absoluteString,
            "http://127.0.0.1:\(known.port)/common/oauth2/v2.0/token")
        XCTAssertEqual(other.acceptedConnections, 0, "nothing went to the other plain listener")
    }

    func testItsConfigurationCannotPointAtAnotherPlainOrigin() async throws {
        tokenEndpoint.withLock { $0 = "http://127.0.0.1:\(other.port)/common/oauth2/v2.0/token" }
        await assertFailure(code: MSALError.internal.rawValue, internalCode: -42_600) {
            _ = try await self.resolve()
        }
        XCTAssertEqual(other.acceptedConnections, 0)
    }
}
