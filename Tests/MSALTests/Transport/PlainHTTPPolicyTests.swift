import Foundation
import XCTest

@testable import MSAL

/// The transport's plain-HTTP rule as a pure decision: which requests carry a credential, which
/// origins are excepted, and how origins compare.
final class PlainHTTPPolicyTests: XCTestCase {
    private func request(
        _ url: String, method: HTTPRequest.Method = .get, body: [UInt8]? = nil, headers: [(String, String)] = []
    ) -> HTTPRequest {
        HTTPRequest(
            method: method, url: URL(string: url)!, headers: headers.map { (name: $0.0, value: $0.1) }, body: body)
    }

    func testDecisions() {
        let policy = PlainHTTPPolicy(allowedOrigins: [
            HTTPOrigin(scheme: "http", host: "127.0.0.1", port: 8400),
            HTTPOrigin(scheme: "http", host: "[::1]", port: 8401),
        ])
        let form: [UInt8] = Array("refresh_token=x".utf8)
        let table: [(HTTPRequest, PlainHTTPPolicy.Decision, String)] = [
            (request("https://login.microsoftonline.com/t/token", method: .post, body: form), .send, "https"),
            (
                request("HTTPS://login.microsoftonline.com/t/token", method: .post, body: form), .send,
                "upper-case https"
            ),
            (request("http://127.0.0.1:8400/t/token", method: .post, body: form), .send, "configured origin"),
            (request("http://[::1]:8401/t/token", method: .post, body: form), .send, "configured IPv6 origin"),
            (request("http://127.0.0.1:9/token", method: .post, body: form), .refuse, "loopback, not configured"),
            (request("http://127.0.0.1:8401/t/token", method: .post, body: form), .refuse, "another port"),
            (request("http://localhost:8400/t/token", method: .post, body: form), .refuse, "another host spelling"),
            (request("http://127.0.0.1/t/token", method: .post, body: form), .refuse, "default port 80"),
            (request("http://login.example/t/token", method: .post, body: form), .refuse, "plain internet host"),
            (request("http://login.example/me", headers: [("authorization", "Bearer x")]), .refuse, "bearer header"),
            (request("http://login.example/t", method: .post), .refuse, "a POST without a body"),
            (request("http://login.example/x", body: []), .refuse, "an empty body is still a body"),
            (request("ftp://127.0.0.1:8400/x", method: .post, body: form), .refuse, "another scheme"),
            (request("http://login.example/.well-known/openid-configuration"), .send, "no credential"),
            (request("http://login.example/x", headers: [("Accept", "application/json")]), .send, "harmless header"),
        ]
        for (request, expected, label) in table {
            XCTAssertEqual(policy.decision(for: request), expected, label)
        }
        XCTAssertEqual(
            PlainHTTPPolicy().decision(for: request("http://127.0.0.1:8400/t/token", method: .post, body: form)),
            .refuse, "nothing is excepted by default")
    }

    func testOriginsCompareNormalized() {
        XCTAssertEqual(
            HTTPOrigin(URL(string: "HTTP://LocalHost/x")!), HTTPOrigin(scheme: "http", host: "localhost", port: 80))
        XCTAssertEqual(HTTPOrigin(URL(string: "https://a.example/x")!)?.port, 443)
        XCTAssertEqual(HTTPOrigin(URL(string: "http://[::1]:9/x")!), HTTPOrigin(scheme: "http", host: "::1", port: 9))
        XCTAssertEqual(HTTPOrigin(scheme: "http", host: "::1", port: 9).description, "http://[::1]:9")
        XCTAssertNil(HTTPOrigin(URL(string: "mailto:a@b.example")!))
    }

    func testAllowedOriginsAreThoseOfTheKnownPlainLoopbackAuthorities() throws {
        let known = [
            try Authority.oidc(issuer: "http://127.0.0.1:4680/api/oidc"),
            try Authority.oidc(issuer: "http://localhost:8080/issuer"),
            try Authority.oidc(issuer: "http://[::1]/issuer"),
            try Authority.aad("https://login.microsoftonline.com/common"),
        ]
        XCTAssertEqual(
            PlainHTTPPolicy.allowedOrigins(knownAuthorities: known),
            [
                HTTPOrigin(scheme: "http", host: "127.0.0.1", port: 4680),
                HTTPOrigin(scheme: "http", host: "localhost", port: 8080),
                HTTPOrigin(scheme: "http", host: "::1", port: 80),
            ])
        XCTAssertEqual(PlainHTTPPolicy.allowedOrigins(knownAuthorities: []), [])
    }

    func testRefusalIsApplesATSCodeNamingTheURLWithoutItsQuery() {
        let refused = request("http://127.0.0.1:9/token?client_secret=s3cr3t", method: .post, body: [1])
        let error = PlainHTTPPolicy.refusal(for: refused)
        XCTAssertEqual(error.domain, NSURLErrorDomain)
        XCTAssertEqual(error.code, -1022)
        XCTAssertTrue(error.localizedDescription.contains("http://127.0.0.1:9/token"), error.localizedDescription)
        XCTAssertFalse(error.localizedDescription.contains("s3cr3t"))
        XCTAssertEqual(error.userInfo[MSALCorrelationIDKey] as? String, refused.correlationId.uuidString)
        XCTAssertNil(RetryPolicy().delay(afterURLError: error.code, retriesSoFar: 0), "never retried")
        XCTAssertNil(RetryPolicy().delay(afterURLError: -1103, retriesSoFar: 0), "never retried")
    }

    /// A request may name one more plain-HTTP origin of its own (a protected resource call the
    /// app allowed on loopback); it opens that origin to that request only.
    func testARequestsOwnPlainHTTPOrigin() {
        let policy = PlainHTTPPolicy()
        var call = request("http://127.0.0.1:8080/api", headers: [("Authorization", "Bearer x")])
        XCTAssertEqual(policy.decision(for: call), .refuse)
        call.plainHTTPOrigin = HTTPOrigin(scheme: "http", host: "127.0.0.1", port: 8080)
        XCTAssertEqual(policy.decision(for: call), .send)
        call.plainHTTPOrigin = HTTPOrigin(scheme: "http", host: "127.0.0.1", port: 8081)
        XCTAssertEqual(policy.decision(for: call), .refuse, "another port")
        var other = request("http://127.0.0.1:9/token", method: .post, body: [1])
        XCTAssertEqual(policy.decision(for: other), .refuse)
        other.plainHTTPOrigin = HTTPOrigin(scheme: "http", host: "127.0.0.1", port: 8080)
        XCTAssertEqual(policy.decision(for: other), .refuse, "the origin is the request's own URL's only")
    }
}
