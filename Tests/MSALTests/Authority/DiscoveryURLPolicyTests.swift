import Foundation
import XCTest

@testable import MSAL

/// Where discovery documents may send the library: the policy each authority gets, and what it
/// accepts.
final class DiscoveryURLPolicyTests: XCTestCase {
    private func policy(_ authority: Authority, known: Bool) -> DiscoveryURLPolicy {
        AuthorityResolver.endpointPolicy(
            for: authority, isDeveloperKnown: known, configurationURL: authority.openIDConfigurationURL)
    }

    func testEachKindGetsItsPolicy() throws {
        let aad = try Authority.aad("https://login.microsoftonline.com/common")
        XCTAssertEqual(
            policy(aad, known: false),
            DiscoveryURLPolicy(plainHTTPOrigin: nil, requiredHost: "login.microsoftonline.com"))
        let b2c = try Authority.b2c(
            "https://contoso.b2clogin.com:8443/tfp/contoso.onmicrosoft.com/B2C_1_x", validateFormat: true)
        XCTAssertEqual(policy(b2c, known: true).requiredHost, "contoso.b2clogin.com:8443")
        let adfs = try Authority.adfs("https://adfs.contoso.com/adfs")
        XCTAssertEqual(policy(adfs, known: false).requiredHost, "adfs.contoso.com")
        let oidc = try Authority.oidc(issuer: "https://accounts.example.com")
        XCTAssertEqual(policy(oidc, known: false), .httpsOnly)

        let loopback = try Authority.aad("http://127.0.0.1:5556/common")
        XCTAssertEqual(
            policy(loopback, known: true),
            DiscoveryURLPolicy(plainHTTPOrigin: "http://127.0.0.1:5556", requiredHost: "127.0.0.1:5556"))
        XCTAssertNil(policy(loopback, known: false).plainHTTPOrigin, "only a listed authority gets the exception")
        let plainIssuer = try Authority.oidc(issuer: "http://localhost:8080/realm")
        XCTAssertEqual(
            policy(plainIssuer, known: true),
            DiscoveryURLPolicy(plainHTTPOrigin: "http://localhost:8080", requiredHost: nil))
    }

    func testWhatAPolicyAccepts() {
        let known = DiscoveryURLPolicy(plainHTTPOrigin: "http://127.0.0.1:5556", requiredHost: nil)
        let accepted = [
            "https://login.microsoftonline.com/common/oauth2/v2.0/token", "https://127.0.0.1:9/token",
            "http://127.0.0.1:5556/token", "HTTP://127.0.0.1:5556/x?y=1",
        ]
        for url in accepted {
            guard case .success = known.check(url) else { return XCTFail(url) }
        }
        let refused: [(String, DiscoveryURLPolicy.Violation)] = [
            ("http://127.0.0.1:5557/token", .notHTTPS), ("http://127.0.0.1/token", .notHTTPS),
            ("http://localhost:5556/token", .notHTTPS), ("http://[::1]:5556/token", .notHTTPS),
            ("http://login.microsoftonline.com/token", .notHTTPS), ("ftp://127.0.0.1:5556/x", .notHTTPS),
            ("javascript:alert(1)", .notAbsolute), ("/relative", .notAbsolute), ("https://", .notAbsolute),
            ("https://a.com:0/x", .notAbsolute), ("https://a.com:70000/x", .notAbsolute), ("", .notAbsolute),
        ]
        for (url, violation) in refused {
            XCTAssertEqual(known.check(url).failure, violation, url)
        }
        let sameHost = DiscoveryURLPolicy(plainHTTPOrigin: nil, requiredHost: "login.microsoftonline.com")
        XCTAssertEqual(sameHost.check("https://evil.example/t").failure, .otherHost("evil.example"))
        XCTAssertEqual(
            sameHost.check("https://login.microsoftonline.com:8443/t").failure,
            .otherHost("login.microsoftonline.com:8443"))
        XCTAssertNil(sameHost.check("https://LOGIN.microsoftonline.com:443/t").failure)
        XCTAssertEqual(DiscoveryURLPolicy.httpsOnly.check("http://127.0.0.1:5556/token").failure, .notHTTPS)
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
