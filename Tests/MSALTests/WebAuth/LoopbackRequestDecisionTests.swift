import Foundation
import XCTest

@testable import MSAL

/// The loopback listener's rules for one request, without sockets.
final class LoopbackRequestDecisionTests: XCTestCase {
    private func decide(
        _ target: String, method: String = "GET", host: [String] = ["127.0.0.1:5000"], body: String? = nil,
        mode: RedirectResponseMode = .query, state: String? = "s1"
    ) -> LoopbackRequestDecision {
        LoopbackRequestDecision.decide(
            method: method, target: target, headers: host.map { ("host", $0) }, body: body.map { Array($0.utf8) },
            expecting: .init(path: "/cb", port: 5000, origin: "http://127.0.0.1:5000", state: state, mode: mode))
    }

    private func status(_ decision: LoopbackRequestDecision) -> Int? {
        if case .refuse(let status, _, _, _) = decision { return status }
        return nil
    }

    func testQueryMode() {
        XCTAssertEqual(
            decide("/cb?code=c&state=s1"),
            .deliver(url: URL(string: "http://127.0.0.1:5000/cb?code=c&state=s1")!, failed: false))
        XCTAssertEqual(
            decide("/cb?error=access_denied&state=s1"),
            .deliver(url: URL(string: "http://127.0.0.1:5000/cb?error=access_denied&state=s1")!, failed: true))
        XCTAssertEqual(
            decide("/cb?code=c&state=other"),
            .refuse(
                status: 400, reason: "Bad Request", page: .unrecognised,
                warning: "The loopback listener ignored a request without the expected state (a stale tab or "
                    + "another program)."))
        XCTAssertEqual(status(decide("/cb?code=c")), 400, "no state")
        XCTAssertEqual(status(decide("/elsewhere?code=c&state=s1")), 404)
        XCTAssertEqual(status(decide("/cb", method: "POST", body: "code=c&state=s1")), 404, "a POST in query mode")
        XCTAssertNotNil(decide("/cb?code=c", state: nil).deliveredURL, "no expected state: any")
    }

    func testHostRules() {
        XCTAssertEqual(status(decide("/cb?code=c&state=s1", host: ["evil.example"])), 421)
        XCTAssertEqual(status(decide("/cb?code=c&state=s1", host: ["127.0.0.1:5001"])), 421)
        XCTAssertEqual(status(decide("/cb?code=c&state=s1", host: [])), 400)
        XCTAssertEqual(status(decide("/cb?code=c&state=s1", host: ["127.0.0.1:5000", "localhost:5000"])), 400)
        for host in ["LOCALHOST:5000", "[::1]:5000", " 127.0.0.1:5000"] {
            XCTAssertNotNil(decide("/cb?code=c&state=s1", host: [host]).deliveredURL, host)
        }
    }

    func testFormPostMode() {
        XCTAssertEqual(
            decide("/cb", method: "POST", body: "code=c%2B1&state=s1", mode: .formPost).deliveredURL?.absoluteString,
            "http://127.0.0.1:5000/cb?code=c%2B1&state=s1")
        XCTAssertEqual(
            decide("/cb?code=c&state=s1", mode: .formPost),
            .refuse(
                status: 400, reason: "Bad Request", page: .expectsFormPost,
                warning: "The loopback listener refused a GET carrying a code: this sign-in expects form_post."))
        XCTAssertEqual(status(decide("/cb?state=s1", mode: .formPost)), 400, "neither code nor error")
        XCTAssertNotNil(
            decide("/cb?error=server_error&state=s1", mode: .formPost).deliveredURL, "an error may come back")
        XCTAssertEqual(status(decide("/cb?error=x&state=other", mode: .formPost)), 400, "still needs the state")
        XCTAssertEqual(status(decide("/cb", method: "POST", body: "code=c&state=other", mode: .formPost)), 400)
        XCTAssertEqual(status(decide("/cb", method: "POST", body: nil, mode: .formPost)), 400)
        XCTAssertEqual(status(decide("/cb", method: "PUT", body: "code=c&state=s1", mode: .formPost)), 404)
    }
}

extension LoopbackRequestDecision {
    fileprivate var deliveredURL: URL? {
        if case .deliver(let url, _) = self { return url }
        return nil
    }
}
