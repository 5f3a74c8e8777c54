import Foundation
import MSALNative
import XCTest

@testable import MSAL

/// ``WWWAuthenticate``: RFC 9110 challenges, and refusals for what the grammar does not allow.
final class WWWAuthenticateTests: XCTestCase {
    private func parse(_ values: String...) throws -> [WWWAuthenticate.Challenge] {
        try WWWAuthenticate.parse(values)
    }

    private func problem(_ values: [String]) -> WWWAuthenticate.Problem? {
        do {
            _ = try WWWAuthenticate.parse(values)
            return nil
        } catch {
            return error
        }
    }

    func testEntraChallengeWithQuotedParameters() throws {
        let challenges = try parse(
            #"Bearer realm="", authorization_uri="https://login.microsoftonline.com/common/oauth2/authorize", "#
                + #"client_id="00000003-0000-0000-c000-000000000000""#)
        XCTAssertEqual(challenges.count, 1)
        XCTAssertEqual(challenges[0].scheme, "Bearer")
        XCTAssertNil(challenges[0].token68)
        XCTAssertEqual(challenges[0].parameters.map(\.name), ["realm", "authorization_uri", "client_id"])
        XCTAssertEqual(challenges[0].parameter("realm"), "")
        XCTAssertEqual(
            challenges[0].parameter("AUTHORIZATION_URI"), "https://login.microsoftonline.com/common/oauth2/authorize")
    }

    func testSeveralChallengesInOneValueAndAcrossValues() throws {
        let challenges = try parse(
            #"Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple""#,
            "Negotiate YII=, bearer error=invalid_token")
        XCTAssertEqual(challenges.map(\.scheme), ["Newauth", "Basic", "Negotiate", "bearer"])
        XCTAssertEqual(challenges[0].parameter("type"), "1")
        XCTAssertEqual(challenges[0].parameter("title"), #"Login to "apps""#, "quoted pairs are resolved")
        XCTAssertEqual(challenges[1].parameter("realm"), "simple")
        XCTAssertEqual(challenges[2].token68, "YII=")
        XCTAssertTrue(challenges[2].parameters.isEmpty)
        XCTAssertEqual(challenges[3].parameter("error"), "invalid_token")
    }

    func testCommasSpacesAndEscapesInsideQuotedStrings() throws {
        let challenges = try parse(#"Bearer  scope = "a, b \\ c\d" ,error_description="x=y, Basic z""#)
        XCTAssertEqual(challenges.count, 1, "a comma or scheme inside quotes starts nothing")
        XCTAssertEqual(challenges[0].parameter("scope"), #"a, b \ cd"#)
        XCTAssertEqual(challenges[0].parameter("error_description"), "x=y, Basic z")
    }

    func testSchemesAloneEmptyElementsAndToken68Padding() throws {
        let challenges = try parse(" , Basic,, Bearer ,  Negotiate abc/+_-.~== ,")
        XCTAssertEqual(challenges.map(\.scheme), ["Basic", "Bearer", "Negotiate"])
        XCTAssertEqual(challenges[2].token68, "abc/+_-.~==")
        XCTAssertNil(challenges[0].token68)
    }

    func testNonASCIIInQuotedStringIsKept() throws {
        let challenges = try parse("Bearer error_description=\"caf\u{E9} \u{1F600}\"")
        XCTAssertEqual(challenges[0].parameter("error_description"), "caf\u{E9} \u{1F600}")
    }

    func testWhatTheGrammarRefuses() {
        XCTAssertEqual(problem([#"Bearer realm="abc"#]), .unterminatedQuotedString(offset: 13))
        XCTAssertEqual(problem([#"Bearer realm="abc\"#]), .unterminatedQuotedString(offset: 13))
        XCTAssertEqual(problem(["Bearer realm=\"a\u{1}b\""]), .unexpectedCharacter(offset: 15))
        XCTAssertEqual(problem(["Bearer realm=\"a\u{7F}\""]), .unexpectedCharacter(offset: 15))
        XCTAssertEqual(problem(["Bearer realm=\"a\\\u{0}\""]), .unexpectedCharacter(offset: 16))
        XCTAssertEqual(problem([#"Bearer error=a, ERROR="b""#]), .duplicateParameter("error"))
        XCTAssertEqual(problem(["Bearer realm=\"a\" error=\"b\""]), .unexpectedCharacter(offset: 17))
        XCTAssertEqual(problem(["Bearer realm="]), nil, "`realm=` alone is a token68")
        XCTAssertEqual(
            problem(["Bearer realm=,x=1"]), .unexpectedCharacter(offset: 15), "token68, then a scheme `x` then `=`")
        XCTAssertEqual(problem(["Bearer a=b=c"]), .unexpectedCharacter(offset: 10))
        XCTAssertEqual(problem(["\"Bearer\""]), .unexpectedCharacter(offset: 0))
        XCTAssertEqual(problem(["Bearer\ta=b"]), nil, "tab is whitespace")
        XCTAssertEqual(problem(["Bearer a=\"\"\""]), .unexpectedCharacter(offset: 11))
        XCTAssertEqual(problem(["Bearer =x"]), .unexpectedCharacter(offset: 7))
        XCTAssertEqual(problem(["Bearer a={}"]), .unexpectedCharacter(offset: 9))
        XCTAssertEqual(problem([""]), .empty)
        XCTAssertEqual(problem([" , ,"]), .empty)
        XCTAssertEqual(problem([]), .empty)
    }

    func testBoundsOnLengthChallengesAndParameters() {
        let huge = "Bearer realm=\"" + String(repeating: "a", count: WWWAuthenticate.maximumLength) + "\""
        XCTAssertEqual(problem([huge]), .tooLong(huge.utf8.count))
        let many = Array(repeating: "Basic", count: WWWAuthenticate.maximumChallenges + 1)
        XCTAssertEqual(problem(many), .tooMany)
        XCTAssertNil(problem(Array(many.dropLast())))
        let parameters = (0...WWWAuthenticate.maximumParameters).map { "p\($0)=v" }.joined(separator: ", ")
        XCTAssertEqual(problem(["Bearer " + parameters]), .tooMany)
        let unclosed = "Bearer a=\"" + String(repeating: "\\\"", count: 30_000)
        XCTAssertEqual(problem([unclosed]), .unterminatedQuotedString(offset: 9))
    }

    /// Neither a value nor a header may reach a message: problems name offsets and names only.
    func testProblemsDoNotQuoteValues() {
        let text = "\(WWWAuthenticate.Problem.unterminatedQuotedString(offset: 9))"
        XCTAssertFalse(text.contains("secret"))
        XCTAssertEqual(
            "\(WWWAuthenticate.Problem.duplicateParameter("e\u{1B}[31m"))",
            "names the parameter e\\u{1B}[31m twice in one challenge")
    }
}

/// ``ClaimsChallenge``: base64, base64url and JSON claims; refusals with bounds.
final class ClaimsChallengeTests: XCTestCase {
    private let json = #"{"access_token":{"nbf":{"essential":true, "value":"1604106651"}}}"#

    func testStandardBase64AsCAESendsIt() throws {
        let encoded = Data(json.utf8).base64EncodedString()
        XCTAssertTrue(encoded.hasSuffix("="))
        XCTAssertEqual(try ClaimsChallenge.decode(encoded), json, "decoded text returned as sent")
    }

    func testBase64URLWithoutPaddingAndRawJSON() throws {
        let object = #"{"access_token":{"xms_cc":{"values":["cp1"]}},"id_token":{"a?>":null}}"#
        let url = Base64URL.encode(Array(object.utf8))
        XCTAssertEqual(try ClaimsChallenge.decode(Base64URL.encode(Array(#"{"a":"??>>"}"#.utf8))), #"{"a":"??>>"}"#)
        XCTAssertTrue(Base64URL.encode(Array(#"{"a":"??>>"}"#.utf8)).contains("-"), "the URL-safe alphabet is used")
        XCTAssertTrue(Data(#"{"a":"??>>"}"#.utf8).base64EncodedString().contains("+"))
        XCTAssertEqual(try ClaimsChallenge.decode(Data(#"{"a":"??>>"}"#.utf8).base64EncodedString()), #"{"a":"??>>"}"#)
        XCTAssertEqual(try ClaimsChallenge.decode(url), object)
        XCTAssertEqual(try ClaimsChallenge.decode(object), object)
        XCTAssertEqual(try ClaimsChallenge.decode(" " + url + " "), object)
    }

    func testRefusals() {
        func problem(_ value: String) -> ClaimsChallenge.Problem? {
            do {
                _ = try ClaimsChallenge.decode(value)
                return nil
            } catch {
                return error
            }
        }
        XCTAssertEqual(problem(""), .notBase64)
        XCTAssertEqual(problem("not base64!"), .notBase64)
        XCTAssertEqual(problem("eyJ=a"), .notBase64)
        XCTAssertEqual(problem("a+b-"), .notBase64, "two alphabets mixed")
        XCTAssertEqual(problem(Data("[1,2]".utf8).base64EncodedString()), .notAnObject)
        XCTAssertEqual(problem(Data("\"x\"".utf8).base64EncodedString()), .notAnObject)
        XCTAssertEqual(problem(Data([0xFF, 0xFE, 0x7B]).base64EncodedString()), .notJSON)
        XCTAssertEqual(problem(Data("{\"a\":".utf8).base64EncodedString()), .notJSON)
        XCTAssertEqual(problem("{not json}"), .notJSON)
        let deep = String(repeating: "{\"a\":", count: 17) + "1" + String(repeating: "}", count: 17)
        XCTAssertEqual(problem(deep), .tooDeep)
        let shallow = String(repeating: "{\"a\":", count: 16) + "1" + String(repeating: "}", count: 16)
        XCTAssertNil(problem(shallow))
        let long = "{\"a\":\"" + String(repeating: "x", count: ClaimsChallenge.maximumEncodedLength) + "\"}"
        XCTAssertEqual(problem(long), .tooLong)
        let decodedTooLong = "{\"a\":\"" + String(repeating: "x", count: ClaimsChallenge.maximumDecodedLength) + "\"}"
        XCTAssertEqual(problem(decodedTooLong), .tooLong)
    }
}

/// ``MSALWWWAuthenticateParameters``: the named parameters and the public errors.
final class MSALWWWAuthenticateParametersTests: XCTestCase {
    private let claims = #"{"access_token":{"nbf":{"essential":true,"value":"1604106651"}}}"#

    func testCAEClaimsChallengeFromEntra() throws {
        let encoded = Data(claims.utf8).base64EncodedString()
        let parameters = try MSALWWWAuthenticateParameters(headerValues: [
            #"Bearer realm="", authorization_uri="https://login.microsoftonline.com/common/oauth2/authorize", "#
                + #"error="insufficient_claims", claims="\#(encoded)""#
        ])
        XCTAssertEqual(parameters.authenticationScheme, "Bearer")
        XCTAssertEqual(parameters.error, "insufficient_claims")
        XCTAssertEqual(parameters.claims, claims)
        XCTAssertTrue(parameters.isClaimsChallenge)
        XCTAssertEqual(parameters.authority?.absoluteString, "https://login.microsoftonline.com/common")
        XCTAssertEqual(parameters.realm, "")
        XCTAssertEqual(
            try MSALClaimsRequest(jsonString: try XCTUnwrap(parameters.claims)).jsonString(), claims)
    }

    func testResourceMetadataScopeAndSchemeSelection() throws {
        let parameters = try MSALWWWAuthenticateParameters(headerValues: [
            #"Basic realm="x", DPoP algs="ES256""#,
            #"bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", "#
                + #"scope="files:read  files:write", error="insufficient_scope", error_description="more \"scope\"""#,
        ])
        XCTAssertEqual(parameters.challenges.map(\.scheme), ["Basic", "DPoP", "bearer"])
        XCTAssertEqual(parameters.authenticationScheme, "bearer")
        XCTAssertEqual(
            parameters.resourceMetadataURL?.absoluteString,
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp")
        XCTAssertEqual(parameters.scopes, ["files:read", "files:write"])
        XCTAssertEqual(parameters.errorDescription, #"more "scope""#)
        XCTAssertFalse(parameters.isClaimsChallenge)
        XCTAssertNil(parameters.authority)
        XCTAssertNil(parameters.claims)
        let dpop = try MSALWWWAuthenticateParameters(
            headerValues: [#"Basic realm="x", DPoP algs="ES256""#], scheme: "dpop")
        XCTAssertEqual(dpop.challenge.parameter("ALGS"), "ES256")
    }

    func testAuthorityFromAuthorizationURI() throws {
        func authority(_ uri: String, realm: String? = nil) throws -> String? {
            var header = #"Bearer authorization_uri="\#(uri)""#
            if let realm { header += #", realm="\#(realm)""# }
            return try MSALWWWAuthenticateParameters(headerValues: [header]).authority?.absoluteString
        }
        XCTAssertEqual(
            try authority(
                "https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/oauth2/v2.0/authorize"),
            "https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47")
        XCTAssertEqual(
            try authority("https://login.windows.net/", realm: "contoso.com"), "https://login.windows.net/contoso.com")
        XCTAssertEqual(try authority("https://login.windows.net/"), "https://login.windows.net")
        XCTAssertEqual(try authority("https://login.windows.net", realm: "a/b"), "https://login.windows.net")
        XCTAssertEqual(try authority("https://127.0.0.1:8443/tenant/oauth2/token"), "https://127.0.0.1:8443/tenant")
        XCTAssertNil(try authority("http://login.microsoftonline.com/common"), "http is no authority")
        XCTAssertNil(try authority("https://user@login.microsoftonline.com/common"))
        XCTAssertNil(try authority("https://login.microsoftonline.com/common?x=1"))
        XCTAssertNil(try authority("login.microsoftonline.com/common"))
    }

    func testResponseHeadersAreFoundCaseInsensitively() throws {
        let parameters = try MSALWWWAuthenticateParameters(responseHeaders: [
            "Content-Type": "application/json", "www-authenticate": #"Bearer error="invalid_token""#,
        ])
        XCTAssertEqual(parameters.error, "invalid_token")
        XCTAssertThrowsError(try MSALWWWAuthenticateParameters(responseHeaders: ["Content-Type": "text/plain"])) {
            XCTAssertEqual(($0 as NSError).userInfo[MSALInternalErrorCodeKey] as? Int, -42600)
        }
    }

    func testHostileHeadersThrowInvalidResponseWithoutQuotingValues() {
        let secret = "c2VjcmV0LXRva2Vu"
        for values in [
            [#"Bearer realm="\#(secret)"#],
            [#"Bearer claims="\#(secret)!""#],
            ["Bearer claims=\"" + Data("[\"\(secret)\"]".utf8).base64EncodedString() + "\""],
            [#"Basic realm="\#(secret)""#],
            ["Bearer " + String(repeating: "a=\"\(secret)\", ", count: 4_000)],
            [#"Bearer error=\#(secret), error=x"#],
        ] {
            XCTAssertThrowsError(try MSALWWWAuthenticateParameters(headerValues: values)) { error in
                let error = error as NSError
                XCTAssertEqual(error.domain, MSALErrorDomain)
                XCTAssertEqual(error.code, MSALError.internal.rawValue)
                XCTAssertEqual(error.userInfo[MSALInternalErrorCodeKey] as? Int, -42600)
                XCTAssertFalse(error.localizedDescription.contains(secret), error.localizedDescription)
            }
        }
    }

    func testChallengeDescriptionNamesNoValues() throws {
        let challenges = try MSALWWWAuthenticateParameters.challenges(fromHeaderValues: [
            #"Bearer error="invalid_token", claims="e30=", Negotiate abcdef"#
        ])
        XCTAssertEqual(challenges.map(\.description), ["Bearer (error, claims)", "Negotiate (token68)"])
        XCTAssertTrue(challenges[1].hasScheme("NEGOTIATE"))
    }
}
