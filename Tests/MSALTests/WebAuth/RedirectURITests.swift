import Foundation
import XCTest

@testable import MSAL

final class RedirectURITests: XCTestCase {
    func testValidRedirectURIs() throws {
        let table: [(uri: String?, custom: Bool, kind: RedirectURI.Kind, host: String, path: String)] = [
            (nil, false, .loopback(port: nil), "localhost", ""),
            ("", false, .loopback(port: nil), "localhost", ""),
            ("  http://localhost  ", false, .loopback(port: nil), "localhost", ""),
            ("http://localhost:8400/callback", false, .loopback(port: 8400), "localhost", "/callback"),
            ("http://127.0.0.1", false, .loopback(port: nil), "127.0.0.1", ""),
            ("http://[::1]:9000/cb", false, .loopback(port: 9000), "::1", "/cb"),
            ("HTTP://LOCALHOST/", false, .loopback(port: nil), "localhost", "/"),
            ("http://localhost", true, .loopback(port: nil), "localhost", ""),
            ("https://contoso.com/auth", true, .https, "contoso.com", "/auth"),
            ("myapp://auth", true, .customScheme, "auth", ""),
            ("msauth.com.contoso.app://auth", true, .customScheme, "auth", ""),
            ("com.contoso.app:/oauth2redirect", true, .customScheme, "", "/oauth2redirect"),
        ]
        for row in table {
            let uri = try RedirectURI(validating: row.uri, customWebview: row.custom)
            XCTAssertEqual(uri.kind, row.kind, row.uri ?? "nil")
            XCTAssertEqual(uri.host, row.host, row.uri ?? "nil")
            XCTAssertEqual(uri.path, row.path, row.uri ?? "nil")
        }
        XCTAssertEqual(try RedirectURI(validating: nil, customWebview: false).string, "http://localhost")
    }

    func testInvalidRedirectURIs() {
        let table: [(uri: String, custom: Bool, mentions: String)] = [
            ("http://localhost/#frag", false, "RedirectUri MUST NOT include a fragment component."),
            ("myapp://auth#x", true, "RedirectUri MUST NOT include a fragment component."),
            ("urn:ietf:wg:oauth:2.0:oob", true, "http://localhost"),
            ("URN:IETF:WG:OAUTH:2.0:OOB", false, "device code"),
            ("http://contoso.com/cb", false, "use https"),
            ("http://192.168.1.10/cb", true, "loopback"),
            ("http://localhost.evil.com", false, "loopback"),
            ("https://contoso.com/auth", false, "http://localhost"),
            ("myapp://auth", false, "customWebview"),
            ("msauth.com.contoso.app://auth", false, "customWebview"),
            ("msauth.com.contoso.app://other", true, "://auth"),
            ("localhost:8080", false, "localhost"),
            ("no scheme", false, "not a valid URI"),
            ("/relative/path", false, "no scheme"),
            ("http://user:pass@localhost/", false, "user information"),
            ("http://localhost:0", false, "omit the port"),
            ("https:///path", true, "no host"),
            ("myapp:", true, "no host or path"),
        ]
        for row in table {
            do {
                _ = try RedirectURI(validating: row.uri, customWebview: row.custom)
                XCTFail("expected a rejection of \(row.uri)")
            } catch {
                let error = error as NSError
                XCTAssertEqual(error.domain, MSALErrorDomain, row.uri)
                XCTAssertEqual(error.code, -50000, row.uri)
                XCTAssertEqual(error.userInfo[MSALInternalErrorCodeKey] as? Int, -42011, row.uri)
                XCTAssertTrue(
                    error.localizedDescription.contains(row.mentions), "\(row.uri): \(error.localizedDescription)")
            }
        }
    }

    func testPasswordInARejectedURIIsNotEchoed() {
        do {
            _ = try RedirectURI(validating: "http://contoso.com/?password=hunter2", customWebview: false)
            XCTFail("expected a rejection")
        } catch {
            XCTAssertFalse((error as NSError).localizedDescription.contains("hunter2"))
        }
    }

    func testRunTimePort() throws {
        let uri = try RedirectURI(validating: "http://localhost", customWebview: false)
        XCTAssertEqual(uri.with(port: 53117), "http://localhost:53117")
        let withPath = try RedirectURI(validating: "http://127.0.0.1/cb", customWebview: false)
        XCTAssertEqual(withPath.with(port: 40000), "http://127.0.0.1:40000/cb")
        let ipv6 = try RedirectURI(validating: "http://[::1]/cb", customWebview: false)
        XCTAssertEqual(ipv6.with(port: 40001), "http://[::1]:40001/cb")
        let fixed = try RedirectURI(validating: "http://localhost:8400/cb", customWebview: false)
        XCTAssertEqual(fixed.with(port: 1), "http://localhost:8400/cb", "a configured port is kept")
        let custom = try RedirectURI(validating: "myapp://auth", customWebview: true)
        XCTAssertEqual(custom.with(port: 1), "myapp://auth")
    }

    func testMatching() throws {
        let loopback = try RedirectURI(validating: "http://localhost/cb", customWebview: false)
        let fixed = try RedirectURI(validating: "http://localhost:8400", customWebview: false)
        let custom = try RedirectURI(validating: "myapp://auth", customWebview: true)
        let https = try RedirectURI(validating: "https://contoso.com/auth", customWebview: true)
        let table: [(uri: RedirectURI, url: String, port: Int?, matches: Bool)] = [
            (loopback, "http://localhost:5000/cb?code=1", nil, true),
            (loopback, "HTTP://LocalHost:5000/cb?code=1", 5000, true),
            (loopback, "http://localhost:5001/cb?code=1", 5000, false),
            (loopback, "http://localhost:5000/cb/more?code=1", nil, false),
            (loopback, "http://localhost:5000/CB?code=1", nil, false),
            (loopback, "http://127.0.0.1:5000/cb?code=1", nil, false),
            (loopback, "https://localhost:5000/cb?code=1", nil, false),
            (loopback, "http://localhost.evil.com:5000/cb", nil, false),
            (loopback, "http://user@localhost:5000/cb", nil, false),
            (fixed, "http://localhost:8400/?code=1", nil, true),
            (fixed, "http://localhost:8400?code=1", nil, true),
            (fixed, "http://localhost:8401/?code=1", 8401, false),
            (custom, "myapp://auth?code=1", nil, true),
            (custom, "MYAPP://AUTH#code=1", nil, true),
            (custom, "myapp://auth/x?code=1", nil, false),
            (custom, "myapp://other?code=1", nil, false),
            (custom, "otherapp://auth?code=1", nil, false),
            (https, "https://contoso.com:443/auth?code=1", nil, true),
            (https, "https://contoso.com:8443/auth?code=1", nil, false),
            (https, "https://contoso.com/auth2?code=1", nil, false),
        ]
        for row in table {
            XCTAssertEqual(
                row.uri.matches(fixtureURL(row.url), port: row.port), row.matches, "\(row.uri) vs \(row.url)")
        }
    }
}
