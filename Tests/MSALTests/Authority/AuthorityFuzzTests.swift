import Foundation
import XCTest

@testable import MSAL

/// Random inputs never crash the parsers; whatever parses re-parses to itself.
final class AuthorityFuzzTests: XCTestCase {
    private let pieces = [
        "https://", "http://", "HTTPS://", "", "/", "//", "?", "#", ":", "@", "[", "]", "::1", "%", "%2F", "%20", " ",
        "login.microsoftonline.com", "localhost", "127.0.0.1", "tfp", "adfs", "x.ciamlogin.com", "x.b2clogin.com",
        "common", "B2C_1_a", ":443", ":8443", ":99999", ".", "..", "ä", "\u{0}", "\n", "{tenantid}", "\"",
    ]

    private func randomString(_ generator: inout SystemRandomNumberGenerator) -> String {
        (0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
    }

    func testAuthorityParsersNeverCrash() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3_000 {
            let input = randomString(&generator)
            let parsers: [(String) throws -> Authority] = [
                { try Authority.aad($0) }, { try Authority.b2c($0, validateFormat: true) },
                { try Authority.b2c($0, validateFormat: false) }, { try Authority.ciam($0, validateFormat: true) },
                { try Authority.ciam($0, validateFormat: false) }, { try Authority.adfs($0) },
                { try Authority.oidc(issuer: $0) }, { try Authority.detect($0) },
            ]
            for parse in parsers {
                do {
                    let authority = try parse(input)
                    XCTAssertEqual(try parse(authority.urlString), authority, input)
                    _ = authority.openIDConfigurationURL
                    _ = authority.instanceDiscoveryURL(isDeveloperKnown: false)
                    _ = try? authority.withTenant(randomString(&generator))
                    _ = try? authority.withEnvironment(randomString(&generator))
                } catch {
                    let nsError = error as NSError
                    XCTAssertEqual(nsError.domain, MSALErrorDomain)
                    XCTAssertEqual(nsError.userInfo[MSALInternalErrorCodeKey] as? Int, -42_000, input)
                }
            }
        }
    }

    func testDiscoveryParsersNeverCrash() {
        var generator = SystemRandomNumberGenerator()
        let keys = [
            "tenant_discovery_endpoint", "metadata", "preferred_network", "preferred_cache", "aliases", "error",
            "issuer", "authorization_endpoint", "token_endpoint", "jwks_uri",
        ]
        let jsonPieces =
            ["{", "}", "[", "]", ",", ":", "null", "true", "1", "1e309", "\"", "\\u0000"] + keys.map { "\"\($0)\"" }
        for _ in 0..<3_000 {
            let body = (0..<Int.random(in: 0...16, using: &generator)).map { _ in
                Bool.random(using: &generator)
                    ? jsonPieces.randomElement(using: &generator)! : "\"\(randomString(&generator))\""
            }.joined()
            let data = Data(body.utf8)
            for parse in [
                { _ = try InstanceDiscoveryParser.parse(data, requestedEnvironment: "a.com") },
                {
                    _ = try OpenIDConfigurationParser.parse(
                        data, configurationURL: fixtureURL("https://a.com/t/v2.0/x"))
                },
            ] {
                do {
                    try parse()
                } catch {
                    let code = (error as NSError).userInfo[MSALInternalErrorCodeKey] as? Int
                    XCTAssertTrue(code == -42_600 || code == -42_010, body)
                }
            }
            _ = DiscoveryHost.normalized(randomString(&generator))
        }
    }
}
