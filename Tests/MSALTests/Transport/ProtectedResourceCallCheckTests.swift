import Foundation
import XCTest

@testable import MSAL

/// What the library refuses to send with a bearer token, as a pure decision.
final class ProtectedResourceCallCheckTests: XCTestCase {
    private func plan(
        _ url: String, method: String = "GET", body: Bool = false, headers: [(String, String)] = [],
        loopbackHTTP: Bool = false
    ) -> Result<ProtectedResourceCallCheck.Plan, ProtectedResourceCallCheck.Refusal> {
        ProtectedResourceCallCheck.plan(
            url: URL(string: url)!, method: method, hasBody: body, headerNames: headers.map(\.0),
            headerValues: headers.map(\.1), allowsPlainHTTPLoopback: loopbackHTTP)
    }

    func testHTTPSIsSentWithItsMethod() {
        XCTAssertEqual(
            plan("https://graph.microsoft.com/v1.0/me"), .success(.init(method: .get, plainHTTPOrigin: nil)))
        for (method, expected) in [
            ("HEAD", HTTPRequest.Method.head), ("POST", .post), ("PUT", .put), ("PATCH", .patch),
            ("DELETE", .delete),
        ] {
            XCTAssertEqual(plan("https://api.example.com/x", method: method), .success(.init(method: expected)))
        }
        XCTAssertEqual(
            plan("https://api.example.com/x", headers: [("Content-Type", "application/json"), ("X-Tab", "a\tb")]),
            .success(.init(method: .get)))
    }

    func testPlainHTTPOnlyToAnAllowedLoopbackHost() {
        XCTAssertEqual(plan("http://api.example.com/x", loopbackHTTP: true), .failure(.plainHTTPNotLoopback))
        XCTAssertEqual(plan("http://10.0.0.1:8080/x", loopbackHTTP: true), .failure(.plainHTTPNotLoopback))
        XCTAssertEqual(plan("http://127.0.0.1:8080/x"), .failure(.plainHTTPNotAllowed))
        for host in ["127.0.0.1", "[::1]", "localhost"] {
            guard case .success(let plan) = plan("http://\(host):8080/x", loopbackHTTP: true) else {
                return XCTFail(host)
            }
            XCTAssertEqual(plan.plainHTTPOrigin?.port, 8080)
            XCTAssertEqual(plan.plainHTTPOrigin?.scheme, "http")
        }
        XCTAssertEqual(plan("ftp://example.com/x"), .failure(.notAWebURL))
        XCTAssertEqual(plan("https:///x"), .failure(.notAWebURL))
        XCTAssertEqual(plan("https://user:secret@api.example.com/x"), .failure(.userInfo))
    }

    func testMethodsAndHeadersThatCouldMisdirectTheTokenAreRefused() {
        for method in ["TRACE", "CONNECT", "OPTIONS", "get", "head", "GET /x HTTP/1.1\r\nX:"] {
            XCTAssertEqual(plan("https://a.example/x", method: method), .failure(.method(method)), method)
        }
        XCTAssertEqual(plan("https://a.example/x", method: "HEAD", body: true), .failure(.bodyWithHead))
        XCTAssertEqual(plan("https://a.example/x", method: "DELETE", body: true), .success(.init(method: .delete)))
        XCTAssertTrue(
            ProtectedResourceCallCheck.Refusal.method("TRACE").description.hasSuffix(
                "is not one of GET, HEAD, POST, PUT, PATCH, DELETE"))
        for name in ["Authorization", "host", "Content-Length", "Transfer-Encoding", "Connection", "Expect"] {
            XCTAssertEqual(
                plan("https://a.example/x", headers: [(name, "v")]), .failure(.reservedHeader(name)), name)
        }
        for (name, value) in [("X-A", "v\r\nHost: evil.example"), ("X-A", "v\n"), ("X A", "v"), ("", "v"), ("X:", "v")]
        {
            XCTAssertEqual(
                plan("https://a.example/x", headers: [(name, value)]), .failure(.malformedHeader(name)), name)
        }
    }
}
