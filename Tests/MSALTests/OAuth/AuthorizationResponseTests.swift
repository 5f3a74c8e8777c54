import Foundation
import MSALNative
import XCTest

@testable import MSAL

final class AuthorizationResponseTests: XCTestCase {
    private let correlationId = UUID()
    private let rawState = "7A1F0C7E-8B7B-4E4B-9D9C-5C1D8E3F2A10"
    private var state: String { Base64URL.encode(Array(rawState.utf8)) }

    private func parse(_ url: String, host: String? = "login.microsoftonline.com") throws -> AuthorizationResponse {
        try AuthorizationResponse(
            url: fixtureURL(url), expectedState: rawState, requestHost: host, correlationId: correlationId)
    }

    func testCodeFromQuery() throws {
        let response = try parse(
            "http://localhost:5000/?code=abc.DEF-ghi_1&state=\(state)&client_info=eyJ1aWQiOiIxIn0"
                + "&cloud_instance_host_name=login.microsoftonline.us&session_state=s")
        XCTAssertEqual(response.code, "abc.DEF-ghi_1")
        XCTAssertEqual(response.clientInfo, "eyJ1aWQiOiIxIn0")
        XCTAssertEqual(response.cloudInstanceHostName, "login.microsoftonline.us")
        XCTAssertEqual(response.parameters["session_state"], "s")
    }

    func testFragmentAndQueryMergeWithQueryWinning() throws {
        let table: [(url: String, code: String)] = [
            ("myapp://auth#code=fromFragment&state=\(state)", "fromFragment"),
            ("myapp://auth?code=fromQuery#code=fromFragment&state=\(state)", "fromQuery"),
            ("myapp://auth?state=\(state)#code=fragmentOnly", "fragmentOnly"),
            ("http://localhost/cb?code=a%2Bb+c&state=\(state)", "a+b c"),
        ]
        for row in table {
            XCTAssertEqual(try parse(row.url).code, row.code, row.url)
        }
    }

    func testOAuthErrorsMapLikeMSAL() {
        let table: [(query: String, code: Int, internalCode: Int?)] = [
            ("error=access_denied", -50005, nil),
            ("error=access_denied&suberror=user_skipped", -50005, nil),
            ("error=invalid_grant&suberror=transfer_token_expired", -50005, nil),
            ("error=invalid_grant&suberror=insufficient_device_strength", -50000, -50007),
            ("error=invalid_request", -50000, -42002),
            ("error=invalid_request&error_codes=50142", -50142, nil),
            ("error=invalid_client", -50000, -42003),
            ("error=invalid_scope", -50000, -42005),
            ("error=unauthorized_client", -50000, -42006),
            ("error=unauthorized_client&suberror=protection_policy_required", -50004, nil),
            ("error=interaction_required", -50002, nil),
            ("error=server_error", -50000, -50006),
            ("error=login_required", -50000, -42104),
            ("error=consent_required", -50000, -42104),
        ]
        for row in table {
            assertMSALFailure(
                try parse("http://localhost/?\(row.query)&state=\(state)"), code: row.code,
                internalCode: row.internalCode, row.query)
        }
    }

    func testErrorDetailsAreKept() {
        let serverCorrelation = UUID()
        do {
            _ = try parse(
                "http://localhost/?error=access_denied&error_description=The+user+declined&suberror=consent_required"
                    + "&correlation_id=\(serverCorrelation.uuidString)&state=\(state)")
            XCTFail("expected an error")
        } catch {
            let error = error as NSError
            XCTAssertEqual(error.code, -50005)
            XCTAssertEqual(error.userInfo[MSALOAuthErrorKey] as? String, "access_denied")
            XCTAssertEqual(error.userInfo[MSALOAuthSubErrorKey] as? String, "consent_required")
            XCTAssertEqual(error.userInfo[MSALCorrelationIDKey] as? String, serverCorrelation.uuidString)
            XCTAssertTrue(error.localizedDescription.contains("The user declined"), error.localizedDescription)
        }
    }

    func testRequestCorrelationIdWhenTheServerSendsNone() {
        assertCorrelation(url: "http://localhost/?error=access_denied&state=\(state)", correlationId.uuidString)
    }

    private func assertCorrelation(url: String, _ expected: String, line: UInt = #line) {
        do {
            _ = try parse(url)
            XCTFail("expected an error", line: line)
        } catch {
            XCTAssertEqual((error as NSError).userInfo[MSALCorrelationIDKey] as? String, expected, line: line)
        }
    }

    func testStateMustMatch() {
        let wrong = Base64URL.encode(Array("7A1F0C7E-8B7B-4E4B-9D9C-5C1D8E3F2A11".utf8))
        let table = [
            "http://localhost/?code=c",
            "http://localhost/?code=c&state=",
            "http://localhost/?code=c&state=\(wrong)",
            "http://localhost/?code=c&state=\(rawState)",
            "http://localhost/?code=c&state=!!notbase64!!",
            "http://localhost/?error=access_denied",
            "http://localhost/?code=c#state=\(wrong)",
        ]
        for url in table {
            assertMSALFailure(try parse(url), internalCode: -42501, url)
            do {
                _ = try parse(url)
            } catch {
                let message = (error as NSError).localizedDescription
                XCTAssertTrue(message.hasPrefix("Missing or invalid state returned state: "), message)
                XCTAssertFalse(message.contains(rawState), "never shows the expected state")
                XCTAssertFalse(message.contains(state), "never shows the expected state")
            }
        }
    }

    func testStateInTheFragmentCounts() throws {
        XCTAssertEqual(try parse("myapp://auth#code=c&state=\(state)").code, "c")
    }

    func testNoStateOnEitherSidePasses() throws {
        let response = try AuthorizationResponse(
            url: fixtureURL("http://localhost/?code=c"), expectedState: nil, requestHost: nil, correlationId: nil)
        XCTAssertEqual(response.code, "c")
        assertMSALFailure(
            try AuthorizationResponse(
                url: fixtureURL("http://localhost/?code=c&state=x"), expectedState: nil, requestHost: nil,
                correlationId: nil), internalCode: -42501)
    }

    func testStateIsComparedInConstantTime() {
        // The comparison goes through ConstantTime.equals on the decoded bytes: equal-length inputs
        // that differ in the first or the last byte take the same path. Timing itself is not
        // measurable reliably here; this pins that both positions are rejected the same way.
        let first = Base64URL.encode(Array(("X" + rawState.dropFirst()).utf8))
        let last = Base64URL.encode(Array((rawState.dropLast() + "X").utf8))
        for url in ["http://localhost/?code=c&state=\(first)", "http://localhost/?code=c&state=\(last)"] {
            assertMSALFailure(try parse(url), internalCode: -42501)
        }
    }

    func testCodeIsRequired() {
        for url in [
            "http://localhost/?state=\(state)", "http://localhost/?code=&state=\(state)",
            "http://localhost/?code=+++&state=\(state)",
        ] {
            assertMSALFailure(try parse(url), internalCode: -42600, url)
        }
        do {
            _ = try parse("http://localhost/?state=\(state)")
        } catch {
            XCTAssertTrue(
                (error as NSError).localizedDescription.contains("There is no auth code nor an error"))
        }
    }

    func testMalformedEscapesAreAnInvalidResponse() {
        assertMSALFailure(try parse("http://localhost/?code=%FF%FE&state=\(state)"), internalCode: -42600)
    }

    func testCloudInstanceHostNameRules() throws {
        let table: [(value: String, host: String?, expected: String?)] = [
            ("login.microsoftonline.us", "login.microsoftonline.com", "login.microsoftonline.us"),
            ("LOGIN.CHINACLOUDAPI.CN", "login.microsoftonline.com", "login.chinacloudapi.cn"),
            ("login.contoso.com", "login.contoso.com", "login.contoso.com"),
            ("login.contoso.com", "login.microsoftonline.com", nil),
            ("evil.example", "login.microsoftonline.com", nil),
            ("login.microsoftonline.com/evil", "login.microsoftonline.com", nil),
            ("login.microsoftonline.com:8443", "login.microsoftonline.com", nil),
            ("", "login.microsoftonline.com", nil),
        ]
        for row in table {
            let value = row.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? row.value
            let response = try parse(
                "http://localhost/?code=c&state=\(state)&cloud_instance_host_name=\(value)", host: row.host)
            XCTAssertEqual(response.cloudInstanceHostName, row.expected, row.value)
        }
    }

    func testParsesThroughTheRequest() throws {
        let request = AuthorizationRequest(
            authorizeEndpoint: fixtureURL("https://login.microsoftonline.com/common/oauth2/v2.0/authorize"),
            clientId: "c", redirectURI: "http://localhost:1234", scope: "openid", correlationId: correlationId,
            state: rawState, nonce: "n", pkce: PKCE(verifier: String(repeating: "a", count: 43)))
        let response = try AuthorizationResponse(
            url: fixtureURL("http://localhost:1234/?code=c&state=\(request.encodedState)"), request: request)
        XCTAssertEqual(response.code, "c")
    }
}
