import Foundation
import XCTest

@testable import MSAL

/// The choice of `response_mode` and the listener's `Host` rule, without sockets.
final class RedirectResponseModeTests: XCTestCase {
    func testFormPostOnlyForTheSystemBrowserWhenTheServerListsIt() {
        let entra = ["query", "fragment", "form_post"]
        XCTAssertEqual(RedirectResponseMode.choose(supportedByServer: entra, systemBrowser: true), .formPost)
        XCTAssertEqual(RedirectResponseMode.choose(supportedByServer: entra, systemBrowser: false), .query)
        XCTAssertEqual(
            RedirectResponseMode.choose(supportedByServer: ["query", "fragment"], systemBrowser: true), .query)
        XCTAssertEqual(RedirectResponseMode.choose(supportedByServer: nil, systemBrowser: true), .query, "absent")
        XCTAssertEqual(RedirectResponseMode.choose(supportedByServer: [], systemBrowser: true), .query)
        XCTAssertEqual(
            RedirectResponseMode.choose(supportedByServer: ["FORM_POST", "form_post "], systemBrowser: true), .query,
            "the value is compared exactly")
        XCTAssertEqual(RedirectResponseMode.formPost.wireValue, "form_post")
        XCTAssertEqual(RedirectResponseMode.query.wireValue, "query")
    }

    func testTheModeOfAStartURL() throws {
        func mode(_ query: String) throws -> RedirectResponseMode {
            RedirectResponseMode(startURL: try XCTUnwrap(URL(string: "https://idp.example/authorize?" + query)))
        }
        XCTAssertEqual(try mode("client_id=a&response_mode=form_post&state=s"), .formPost)
        XCTAssertEqual(try mode("response_mode=query"), .query)
        XCTAssertEqual(try mode("response_mode=fragment"), .query)
        XCTAssertEqual(try mode("client_id=a"), .query)
    }

    func testDiscoveryResponseModesAreRead() throws {
        let url = try XCTUnwrap(URL(string: "https://login.example/tenant/v2.0/.well-known/openid-configuration"))
        func document(_ modes: String?) -> Data {
            var fields = [
                "\"issuer\":\"https://login.example/tenant/v2.0\"",
                "\"authorization_endpoint\":\"https://login.example/tenant/oauth2/v2.0/authorize\"",
                "\"token_endpoint\":\"https://login.example/tenant/oauth2/v2.0/token\"",
            ]
            if let modes { fields.append("\"response_modes_supported\":\(modes)") }
            return Data(("{" + fields.joined(separator: ",") + "}").utf8)
        }
        let entra = try OpenIDConfigurationParser.parse(
            document("[\"query\",\"fragment\",\"form_post\"]"), configurationURL: url)
        XCTAssertEqual(entra.responseModesSupported, ["query", "fragment", "form_post"])
        XCTAssertNil(try OpenIDConfigurationParser.parse(document(nil), configurationURL: url).responseModesSupported)
        XCTAssertNil(
            try OpenIDConfigurationParser.parse(document("[\"form_post\",7]"), configurationURL: url)
                .responseModesSupported, "a list with a non-string is not trusted")
        XCTAssertNil(
            try OpenIDConfigurationParser.parse(document("\"form_post\""), configurationURL: url).responseModesSupported
        )
    }

    func testOnlyLoopbackHostsWithTheListenersPortAreAccepted() {
        for host in ["127.0.0.1:5000", "localhost:5000", "LocalHost:5000", "[::1]:5000", " localhost:5000 "] {
            XCTAssertTrue(LoopbackRequestDecision.isLoopbackHost(host, port: 5000), host)
        }
        for host in [
            "evil.example", "evil.example:5000", "localhost:5001", "localhost", "127.0.0.1", "127.0.0.2:5000",
            "localhost.evil.example:5000", "[::1]:50000", "::1:5000", "localhost:5000@evil", "", "0.0.0.0:5000",
        ] {
            XCTAssertFalse(LoopbackRequestDecision.isLoopbackHost(host, port: 5000), host)
        }
        XCTAssertTrue(LoopbackRequestDecision.isLoopbackHost("localhost", port: 80), "port 80 may be left out")
        XCTAssertTrue(LoopbackRequestDecision.isLoopbackHost("localhost:80", port: 80))
    }

    func testTheListenersLimitsAreTheDocumentedOnes() {
        XCTAssertEqual(LoopbackRedirectListener.maximumConnections, 16)
        XCTAssertEqual(LoopbackRedirectListener.requestDeadline, 5)
        XCTAssertEqual(LoopbackRedirectListener.maximumHeadBytes, 16384)
        XCTAssertEqual(LoopbackRedirectListener.maximumBodyBytes, 65536)
    }
}
