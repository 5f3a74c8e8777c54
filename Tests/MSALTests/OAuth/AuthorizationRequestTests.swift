import Foundation
import MSALNative
import XCTest

@testable import MSAL

final class AuthorizationRequestTests: XCTestCase {
    private let correlationId = UUID(uuidString: "6F1C2B3A-0000-4000-8000-00000000ABCD")!
    private let pkce = PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")

    private func makeRequest(endpoint: String = "https://login.microsoftonline.com/common/oauth2/v2.0/authorize")
        -> AuthorizationRequest
    {
        AuthorizationRequest(
            authorizeEndpoint: fixtureURL(endpoint), clientId: "client-1",
            redirectURI: "http://localhost:53117", scope: "user.read openid profile offline_access",
            correlationId: correlationId, state: "state-uuid", nonce: "nonce-uuid", pkce: pkce)
    }

    /// The query of `url` decoded, in order.
    private func pairs(_ url: URL) -> [(name: String, value: String)] {
        FormURLEncoding.decode(url.query ?? "") ?? []
    }

    private func value(_ name: String, in url: URL) -> String? {
        pairs(url).first { $0.name == name }?.value
    }

    func testMinimalRequestHasMSALsParametersInOrder() throws {
        let url = try makeRequest().url()
        XCTAssertTrue(url.absoluteString.hasPrefix("https://login.microsoftonline.com/common/oauth2/v2.0/authorize?"))
        let names = pairs(url).map(\.name)
        XCTAssertEqual(
            names,
            [
                "client_id", "response_type", "redirect_uri", "scope", "state", "code_challenge",
                "code_challenge_method", "nonce", "client_info", "haschrome", "return-client-request-id",
                "client-request-id", "x-client-SKU", "x-client-Ver", "x-client-OS", "x-client-CPU", "response_mode",
            ])
        XCTAssertEqual(value("client_id", in: url), "client-1")
        XCTAssertEqual(value("response_type", in: url), "code")
        XCTAssertEqual(value("redirect_uri", in: url), "http://localhost:53117")
        XCTAssertEqual(value("scope", in: url), "user.read openid profile offline_access")
        XCTAssertEqual(value("state", in: url), Base64URL.encode(Array("state-uuid".utf8)))
        XCTAssertEqual(value("code_challenge", in: url), "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        XCTAssertEqual(value("code_challenge_method", in: url), "S256")
        XCTAssertEqual(value("nonce", in: url), "nonce-uuid")
        XCTAssertEqual(value("client_info", in: url), "1")
        XCTAssertEqual(value("haschrome", in: url), "1")
        XCTAssertEqual(value("return-client-request-id", in: url), "true")
        XCTAssertEqual(value("client-request-id", in: url), correlationId.uuidString)
        XCTAssertEqual(value("x-client-SKU", in: url), "MSAL.Linux.Swift")
        XCTAssertEqual(value("x-client-Ver", in: url), LibraryInfo.version)
        XCTAssertEqual(value("response_mode", in: url), "query")
        XCTAssertNil(value("prompt", in: url))
        XCTAssertNil(value("claims", in: url))
    }

    func testFormPostResponseModeIsSentInPlaceOfQuery() throws {
        var request = makeRequest()
        request.responseMode = .formPost
        request.extraQueryParameters = [("response_mode", "fragment")]
        let url = try request.url()
        XCTAssertEqual(pairs(url).filter { $0.name == "response_mode" }.map(\.value), ["form_post"])
        XCTAssertEqual(RedirectResponseMode(startURL: url), .formPost, "the listener reads the mode the URL asks for")
    }

    func testEveryOptionalParameter() throws {
        var request = makeRequest()
        request.loginHint = "alice@contoso.com"
        request.promptType = .login
        request.claims = #"{"access_token":{"xms_cc":{"values":["cp1"]}}}"#
        request.accountObjectId = "uid-1"
        request.accountTenantId = "utid-1"
        request.anchorMailbox = "Oid:uid-1@utid-1"
        request.instanceAware = true
        request.domainHint = "contoso.com"
        request.appName = "My App"
        request.appVersion = "1.2"
        request.extraQueryParameters = [("slice", "testslice"), ("dc", "ESTS-PUB-WUS2-AZ1-TEST1")]
        let url = try request.url()
        let expected: [(String, String)] = [
            ("login_hint", "alice@contoso.com"),
            ("prompt", "login"),
            ("claims", #"{"access_token":{"xms_cc":{"values":["cp1"]}}}"#),
            ("login_req", "uid-1"),
            ("domain_req", "utid-1"),
            ("x-app-name", "My App"),
            ("x-app-ver", "1.2"),
            ("X-AnchorMailbox", "Oid:uid-1@utid-1"),
            ("instance_aware", "true"),
            ("domain_hint", "contoso.com"),
        ]
        for (name, wanted) in expected {
            XCTAssertEqual(value(name, in: url), wanted, name)
        }
        let names = pairs(url).map(\.name)
        XCTAssertEqual(
            Array(names.suffix(3)), ["response_mode", "slice", "dc"], "extra parameters come last, in order")
        XCTAssertLessThan(names.firstIndex(of: "login_hint")!, names.firstIndex(of: "state")!)
    }

    func testPromptValues() throws {
        let table: [(MSALPromptType, String?)] = [
            (.selectAccount, "select_account"), (.login, "login"), (.consent, "consent"), (.create, "create"),
            (.promptIfNecessary, nil), (.default, nil),
        ]
        for (prompt, wire) in table {
            var request = makeRequest()
            request.promptType = prompt
            XCTAssertEqual(value("prompt", in: try request.url()), wire, "\(prompt)")
        }
    }

    func testClientInfoOnlyWhenSupported() throws {
        var request = makeRequest()
        request.sendClientInfo = false
        XCTAssertNil(value("client_info", in: try request.url()))
    }

    func testDuplicateClaimsIsRejected() {
        var request = makeRequest()
        request.claims = #"{"id_token":{"auth_time":{"essential":true}}}"#
        request.extraQueryParameters = [("claims", "{}")]
        assertMSALFailure(
            try request.url(), internalCode: -42000,
            message: "Duplicate claims parameter is found in extraQueryParameters. Please remove it.")
    }

    func testClaimsInExtraParametersAloneIsSent() throws {
        var request = makeRequest()
        request.extraQueryParameters = [("claims", "{\"a\":1}")]
        XCTAssertEqual(value("claims", in: try request.url()), "{\"a\":1}")
        request.claims = "  "
        XCTAssertEqual(value("claims", in: try request.url()), "{\"a\":1}", "blank claims count as none")
    }

    func testExtraParametersCannotOverrideTheLibrarysOwn() throws {
        var request = makeRequest()
        request.extraQueryParameters = [
            ("state", "evil"), ("redirect_uri", "https://evil.example"), ("Code_Challenge", "x"), ("prompt", "none"),
            ("foo", "1"), ("foo", "2"),
        ]
        let url = try request.url()
        let all = pairs(url)
        XCTAssertEqual(all.filter { $0.name == "state" }.map(\.value), [request.encodedState])
        XCTAssertEqual(all.filter { $0.name == "redirect_uri" }.map(\.value), ["http://localhost:53117"])
        XCTAssertFalse(all.contains { $0.name == "Code_Challenge" })
        XCTAssertEqual(value("prompt", in: url), "none", "a parameter the library did not set passes")
        XCTAssertEqual(all.filter { $0.name == "foo" }.map(\.value), ["1"])
    }

    func testEncodingRoundTripsAnyValue() throws {
        let awkward = [
            "a b+c&d=e#f?g/h%i", "ünïcödé ✓ 日本", "\"quoted\" 'single' <tag>", "line\nbreak\ttab", "~!*()';:@$,[]",
        ]
        for text in awkward {
            var request = makeRequest()
            request.loginHint = text
            request.extraQueryParameters = [(text, text)]
            let url = try request.url()
            XCTAssertEqual(value("login_hint", in: url), text)
            XCTAssertEqual(value(text, in: url), text)
            XCTAssertNil(url.fragment, "nothing may open a fragment")
            XCTAssertEqual(URLComponents(url: url, resolvingAgainstBaseURL: false)?.host, "login.microsoftonline.com")
        }
    }

    func testEndpointQueryIsKeptAndFragmentDropped() throws {
        let b2c = try makeRequest(
            endpoint: "https://contoso.b2clogin.com/contoso.onmicrosoft.com/oauth2/v2.0/authorize?p=B2C_1_signin"
        )
        .url()
        XCTAssertEqual(pairs(b2c).first?.name, "p")
        XCTAssertEqual(pairs(b2c)[1].name, "client_id")
        let withFragment = try makeRequest(endpoint: "https://login.example.com/authorize#x").url()
        XCTAssertNil(withFragment.fragment)
        XCTAssertTrue(withFragment.absoluteString.hasPrefix("https://login.example.com/authorize?client_id="))
    }

    func testFreshSecretsPerRequest() throws {
        let endpoint = fixtureURL("https://login.microsoftonline.com/common/oauth2/v2.0/authorize")
        let first = try AuthorizationRequest(
            authorizeEndpoint: endpoint, clientId: "c", redirectURI: "http://localhost", scope: "openid",
            correlationId: correlationId)
        let second = try AuthorizationRequest(
            authorizeEndpoint: endpoint, clientId: "c", redirectURI: "http://localhost", scope: "openid",
            correlationId: correlationId)
        XCTAssertNotEqual(first.state, second.state)
        XCTAssertNotEqual(first.nonce, second.nonce)
        XCTAssertNotEqual(first.pkce.verifier, second.pkce.verifier)
        XCTAssertNotNil(UUID(uuidString: first.state), "state is a UUID string, sent base64url-encoded")
        XCTAssertEqual(Base64URL.decode(first.encodedState), Array(first.state.utf8))
        XCTAssertTrue(PKCE.isValidVerifier(first.pkce.verifier))
    }

    func testDictionaryExtraParametersAreSorted() {
        let ordered = AuthorizationRequest.orderedParameters(["b": "2", "a": "1", "c": "3"])
        XCTAssertEqual(ordered.map(\.name), ["a", "b", "c"])
        XCTAssertTrue(AuthorizationRequest.orderedParameters(nil).isEmpty)
    }
}
