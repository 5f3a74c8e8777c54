import Foundation
import XCTest

@testable import MSAL

final class RedactionTests: XCTestCase {
    private let jwt = "eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ.eyJzdWIiOiJhbGljZSIsIm9pZCI6IjEifQ.QUJDREVGR0hJSktMTU5PUA"
    private let refreshToken = "0.AXoAsecret-refresh_token.value"

    private func assertMasked(
        _ output: String, hides secrets: [String], keeps kept: [String] = [], file: StaticString = #filePath,
        line: UInt = #line
    ) {
        for secret in secrets {
            XCTAssertFalse(output.contains(secret), "'\(secret)' leaked in: \(output)", file: file, line: line)
        }
        for value in kept {
            XCTAssertTrue(output.contains(value), "'\(value)' missing in: \(output)", file: file, line: line)
        }
    }

    func testAuthorizeRedirectURL() {
        let url =
            "http://localhost:51234/callback?code=0.AUTHCODEvalue-x&state=abc123&session_state=s&client_info=eyJ1aWQiOiIxIn0"
        let output = Redaction.url(url)
        assertMasked(
            output, hides: ["0.AUTHCODEvalue-x", "eyJ1aWQiOiIxIn0"],
            keeps: ["http://localhost:51234/callback?code=", "state=abc123", "session_state=s", "client_info=(pii)"])
    }

    func testAuthorizeRequestURLWithHints() throws {
        let url = try XCTUnwrap(
            URL(
                string: "https://login.microsoftonline.com/common/oauth2/v2.0/authorize?client_id=app&"
                    + "response_type=code&login_hint=alice%40contoso.com&code_challenge=CHALLENGE&"
                    + "code_challenge_method=S256&redirect_uri=http%3A%2F%2Flocalhost&id_token_hint=\(jwt)"))
        let output = Redaction.url(url)
        assertMasked(
            output, hides: ["alice", jwt, "QUJDREVGR0hJSktMTU5PUA"],
            keeps: ["response_type=code&", "code_challenge=CHALLENGE", "client_id=app", "code_challenge_method=S256"])
    }

    func testFragmentAndUserInfo() {
        let output = Redaction.url("https://user:p4ssw0rd@example.com/cb#id_token=\(jwt)&access_token=AT123&state=x")
        assertMasked(
            output, hides: ["p4ssw0rd", jwt, "AT123"], keeps: ["https://user:", "@example.com/cb#", "state=x"])
    }

    func testFormBodies() {
        let bodies: [(String, [String], [String])] = [
            (
                "grant_type=refresh_token&refresh_token=\(refreshToken)&client_id=app&scope=openid+profile",
                [refreshToken], ["grant_type=refresh_token", "client_id=app", "scope=openid+profile"]
            ),
            (
                "grant_type=authorization_code&code=AUTHZ&code_verifier=VERIFIER-123&redirect_uri=x",
                ["AUTHZ", "VERIFIER-123"], ["grant_type=authorization_code", "redirect_uri=x"]
            ),
            (
                "grant_type=password&username=bob%40contoso.com&password=hunter2%26more&client_secret=CS~1",
                ["bob", "hunter2", "CS~1"], ["grant_type=password"]
            ),
            (
                "client_assertion_type=urn%3Ajwt&client_assertion=\(jwt)&assertion=SAML123&device_code=DC-9",
                [jwt, "SAML123", "DC-9"], ["client_assertion_type=urn%3Ajwt"]
            ),
            ("Refresh_Token=\(refreshToken)&CODE=UPPER", [refreshToken, "UPPER"], []),
        ]
        for (body, secrets, kept) in bodies {
            assertMasked(Redaction.formBody(body), hides: secrets, keeps: kept)
            assertMasked(Redaction.formBody(Data(body.utf8)), hides: secrets, keeps: kept)
        }
    }

    func testSimilarKeysAreNotMasked() {
        let text = "x_code=1&error_codes=2&response_type=code&codes=3&user_code_length=4&grant_type=device_code"
        XCTAssertEqual(Redaction.formBody(text), text)
        XCTAssertEqual(
            Redaction.text(#"{"error_codes":[50142],"code_challenge":"c"}"#),
            #"{"error_codes":[50142],"code_challenge":"c"}"#)
    }

    func testJSONBodies() {
        let body = """
            {"token_type":"Bearer","scope":"User.Read","expires_in":3599,"access_token":"\(jwt)",
             "refresh_token":"\(refreshToken)","id_token":"\(jwt)","client_info":"eyJ1aWQiOiJ4In0",
             "secret": "cached \\"quoted\\" secret", "preferred_username" : "alice@contoso.com", "home_account_id":"uid.utid"}
            """
        let output = Redaction.text(body)
        assertMasked(
            output, hides: [jwt, refreshToken, "eyJ1aWQiOiJ4In0", "quoted", "alice", "uid.utid"],
            keeps: [#""token_type":"Bearer""#, #""scope":"User.Read""#, #""expires_in":3599"#])
    }

    func testJWTsAndCredentialsInFreeText() {
        let text =
            "The server said: token \(jwt). Authorization: Bearer abc.def-ghi~jkl+/= then PoP xyz and Basic dXNlcjpwYXNz"
        assertMasked(
            Redaction.text(text), hides: [jwt, "abc.def-ghi~jkl", "xyz", "dXNlcjpwYXNz"],
            keeps: ["The server said: token ", "Authorization: Bearer ", "then PoP ", "and Basic "])
        // Unsigned JWT (empty signature) and JWE (five parts).
        let unsigned = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0."
        let jwe = "eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..aXY.Y2lwaGVy.dGFn"
        assertMasked(
            Redaction.text("a \(unsigned) b \(jwe) c"), hides: ["eyJzdWIiOiJ4In0", "Y2lwaGVy"],
            keeps: ["a ", " b ", " c"])
    }

    func testNothingSensitiveIsLeftUntouched() {
        for text in ["", "plain text", "HTTP 404 Not Found", "é 漢字 🙂 code", "a=b&c=d", "{\"a\":\"b\"}"] {
            XCTAssertEqual(Redaction.text(text), text)
        }
    }

    func testEmptyValuesStayEmpty() {
        XCTAssertEqual(Redaction.formBody("code=&state=x"), "code=&state=x")
        XCTAssertEqual(Redaction.text(#"{"refresh_token":""}"#), #"{"refresh_token":""}"#)
    }

    func testPartsAreLossless() {
        let samples = [
            "https://h/cb?code=abc&state=1#id_token=\(jwt)",
            "grant_type=password&username=u%40x&password=p",
            #"{"access_token":"\#(jwt)","login_hint":"alice"} Bearer \#(jwt)"#,
            "héllo code=ü漢字🙂&x=1 eyJ🙂.a.b",
        ]
        for sample in samples {
            let rendered = LogMessage(parts: Redaction.parts(of: sample)).render(
                masking: .maskSecretsOnly, piiEnabled: true)
            XCTAssertEqual(rendered.text, sample)
        }
    }

    func testInvalidUTF8AndRandomInputNeverCrash() {
        _ = Redaction.formBody(Data([0xFF, 0xFE, 0x63, 0x6F, 0x64, 0x65, 0x3D, 0xC3]))
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("code=&#?\"':{} \\eyJ.-_aZ09🙂é%+/=Bearer refresh_token")
        for _ in 0..<2000 {
            let length = Int.random(in: 0...80, using: &generator)
            let text = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
            let parts = Redaction.parts(of: text)
            let rendered = LogMessage(parts: parts).render(masking: .maskSecretsOnly, piiEnabled: true)
            XCTAssertEqual(rendered.text, text)
            _ = Redaction.text(text)
        }
    }

    func testMaskedMarkers() {
        XCTAssertEqual(Redaction.maskedPII(""), "(empty)")
        XCTAssertEqual(Redaction.maskedPII("alice"), "(pii)")
        XCTAssertEqual(Redaction.maskedSecret(""), "(empty)")
        XCTAssertEqual(Redaction.maskedSecret("abcd"), "(secret, 4 bytes)")
    }
}
