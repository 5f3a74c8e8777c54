import Foundation
import MSALNative
import XCTest

@testable import MSAL

final class TokenResponseTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_800_000_000.7)

    private func parse(_ json: String) throws -> TokenResponse {
        try TokenResponse(body: Data(json.utf8), now: now)
    }

    func testFieldsAndTimesFromSeconds() throws {
        let response = try parse(
            #"{"token_type":"Bearer","scope":"User.Read openid","expires_in":3599,"ext_expires_in":"7200","#
                + #""refresh_in":1800,"access_token":"at","refresh_token":"rt","id_token":"a.b.c","client_info":"ci","#
                + #""foci":"1","correlation_id":"c1","extra":true}"#)
        XCTAssertEqual(response.tokenType, "Bearer")
        XCTAssertEqual(response.scope, "User.Read openid")
        XCTAssertEqual(response.accessToken, "at")
        XCTAssertEqual(response.refreshToken, "rt")
        XCTAssertEqual(response.idToken, "a.b.c")
        XCTAssertEqual(response.clientInfo, "ci")
        XCTAssertEqual(response.familyId, "1")
        XCTAssertEqual(response.correlationId, "c1")
        XCTAssertEqual(response.cachedAt.timeIntervalSince1970, 1_800_000_000)
        XCTAssertEqual(response.expiresOn.timeIntervalSince1970, 1_800_003_599)
        XCTAssertEqual(response.extendedExpiresOn?.timeIntervalSince1970, 1_800_007_200)
        XCTAssertEqual(response.refreshOn?.timeIntervalSince1970, 1_800_001_800)
        XCTAssertEqual(response.fields["extra"], .bool(true))
    }

    func testExpiresOnWinsOverExpiresInAndMissingMeansOneHour() throws {
        let explicit = try parse(#"{"access_token":"at","expires_on":"1800000100","expires_in":5}"#)
        XCTAssertEqual(explicit.expiresOn.timeIntervalSince1970, 1_800_000_100)
        let missing = try parse(#"{"access_token":"at"}"#)
        XCTAssertEqual(missing.expiresOn.timeIntervalSince1970, 1_800_003_600)
        XCTAssertNil(missing.refreshOn)
        XCTAssertNil(missing.extendedExpiresOn)
        XCTAssertEqual(missing.tokenType, "Bearer")
    }

    func testRefreshTokenExpiryIsReadWhenTheServerGivesIt() throws {
        let stated = try parse(#"{"access_token":"at","refresh_token":"rt","refresh_token_expires_in":"86400"}"#)
        XCTAssertEqual(stated.refreshTokenExpiresOnSeconds, 1_800_086_400)
        XCTAssertNil(try parse(#"{"access_token":"at","refresh_token":"rt"}"#).refreshTokenExpiresOnSeconds)
    }

    func testRejectsWhatIsNotATokenResponse() {
        for body in ["", "[]", "not json", #"{"error":"invalid_grant"}"#, #"{"token_type":"Bearer"}"#] {
            XCTAssertThrowsError(try parse(body), body) { error in
                let nsError = error as NSError
                XCTAssertEqual(nsError.domain, MSALErrorDomain)
                XCTAssertEqual(nsError.userInfo[MSALInternalErrorCodeKey] as? Int, -42600)
            }
        }
    }

    private func assertInvalid(_ body: String, naming field: String, file: StaticString = #filePath, line: UInt = #line)
    {
        XCTAssertThrowsError(try parse(body), body, file: file, line: line) { error in
            let nsError = error as NSError
            XCTAssertEqual(nsError.domain, MSALErrorDomain, file: file, line: line)
            XCTAssertEqual(nsError.code, MSALError.internal.rawValue, file: file, line: line)
            XCTAssertEqual(nsError.userInfo[MSALInternalErrorCodeKey] as? Int, -42600, file: file, line: line)
            let description = nsError.userInfo[MSALErrorDescriptionKey] as? String ?? ""
            XCTAssertTrue(description.contains(field), "\(body): \(description)", file: file, line: line)
        }
    }

    func testAnAnswerWithoutANonEmptyAccessTokenIsRefused() {
        for body in [
            #"{"id_token":"a.b.c"}"#, #"{"access_token":"","id_token":"a.b.c"}"#, #"{"access_token":null}"#,
            #"{"access_token":42}"#, #"{"access_token":["at"]}"#,
        ] {
            assertInvalid(body, naming: "access_token")
        }
    }

    /// A token with a line break would write a header of the server's choosing into the app's
    /// own API calls (`Authorization: Bearer <token>`); one with an escape would drive a terminal.
    func testTokensHoldOnlyPrintableASCII() throws {
        // Values as JSON string text, escapes included, so the parser hands over the raw characters.
        let rows: [(field: String, json: String)] = [
            ("access_token", #""eyJ0\r\nX-Injected: 1""#), ("access_token", #""at\u001b[2J""#),
            ("access_token", #""at\u0000""#), ("access_token", #""\u00e9t\u00e9""#),
            ("refresh_token", #""rt\nrt""#), ("id_token", #""a.b.c\u007f""#),
        ]
        for row in rows {
            var members = [#""token_type":"Bearer""#]
            members.append(row.field == "access_token" ? #""access_token":\#(row.json)"# : #""access_token":"at""#)
            if row.field != "access_token" { members.append(#""\#(row.field)":\#(row.json)"#) }
            assertInvalid("{" + members.joined(separator: ",") + "}", naming: row.field)
        }
        let printable = try TokenResponse(
            body: Data(#"{"access_token":"EwB+/= ~!","refresh_token":"0.A r-t","token_type":"Bearer"}"#.utf8),
            now: Date())
        XCTAssertEqual(printable.accessToken, "EwB+/= ~!")
    }

    func testTokenTypeIsBearerInAnyCaseOrAbsentAndNothingElse() throws {
        XCTAssertEqual(try parse(#"{"access_token":"at","token_type":"bearer"}"#).tokenType, "Bearer")
        XCTAssertEqual(try parse(#"{"access_token":"at","token_type":"BEARER"}"#).tokenType, "Bearer")
        XCTAssertEqual(try parse(#"{"access_token":"at"}"#).tokenType, "Bearer")
        for type in [#""pop""#, #""MAC""#, #""""#, #""Bearer ""#, "1", "null", "true"] {
            assertInvalid(#"{"access_token":"at","token_type":"# + type + "}", naming: "token_type")
        }
    }

    func testEveryTimeFieldOutOfRangeOrMalformedIsRefusedNotATrap() {
        let fields = [
            "expires_in", "ext_expires_in", "refresh_in", "expires_on", "ext_expires_on", "refresh_on",
            "refresh_token_expires_in",
        ]
        let values = [
            "1e30", "-1e30", "9.3e18", #""1e30""#, "1e400", #""abc""#, "-1", "true", "null", "[]", "{}", #""""#,
            #""0x10""#, #""inf""#, #""nan""#, "9223372036854775807", "18446744073709551616",
        ]
        for field in fields {
            for value in values {
                assertInvalid(#"{"access_token":"at",""# + field + #"":"# + value + "}", naming: field)
            }
        }
    }

    func testTimeFieldsAtTheEdgesOfTheirRanges() throws {
        let longest = try parse(#"{"access_token":"at","expires_in":315576000,"refresh_in":"0"}"#)
        XCTAssertEqual(longest.expiresOnSeconds, 1_800_000_000 + 315_576_000)
        XCTAssertEqual(longest.refreshOnSeconds, 1_800_000_000)
        assertInvalid(#"{"access_token":"at","expires_in":315576001}"#, naming: "expires_in")
        let latest = try parse(#"{"access_token":"at","expires_on":4102444800,"ext_expires_on":"0"}"#)
        XCTAssertEqual(latest.expiresOnSeconds, 4_102_444_800)
        XCTAssertEqual(latest.extendedExpiresOnSeconds, 0)
        assertInvalid(#"{"access_token":"at","expires_on":4102444801}"#, naming: "expires_on")
        let fraction = try parse(#"{"access_token":"at","expires_in":3599.9,"ext_expires_in":" 7200 "}"#)
        XCTAssertEqual(fraction.expiresOnSeconds, 1_800_003_599)
        XCTAssertEqual(fraction.extendedExpiresOnSeconds, 1_800_007_200)
    }
}

final class ClientInfoTests: XCTestCase {
    func testHomeAccountIdIsTrimmedAndLowercased() throws {
        let raw = Base64URL.encode(Array(#"{"uid":" ABC ","utid":"Tenant-1"}"#.utf8))
        let info = try ClientInfo(raw: raw)
        XCTAssertEqual(info.uid, " ABC ")
        XCTAssertEqual(info.homeAccountId, "abc.tenant-1")
        XCTAssertEqual(info.raw, raw)
    }

    func testPaddedValueIsAccepted() throws {
        let raw = Base64URL.encode(Array(#"{"uid":"u","utid":"t"}"#.utf8)) + "=="
        XCTAssertEqual(try ClientInfo(raw: raw).homeAccountId, "u.t")
    }

    func testMalformedValuesAreRejected() {
        for raw in ["", "!!!", Base64URL.encode(Array("[]".utf8)), Base64URL.encode(Array(#"{"uid":"u"}"#.utf8))] {
            XCTAssertThrowsError(try ClientInfo(raw: raw), raw)
        }
    }
}

final class IDTokenClaimsTests: XCTestCase {
    private func token(_ claims: [String: Any]) -> String {
        let header = Base64URL.encode(Array(#"{"alg":"RS256"}"#.utf8))
        let payload = Base64URL.encode(Array((try? JSONSerialization.data(withJSONObject: claims)) ?? Data()))
        return header + "." + payload + "."
    }

    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    func testAccountClaims() throws {
        let claims = try IDTokenClaims(
            raw: token(["oid": "o1", "sub": "s1", "tid": "t1", "preferred_username": "a@b.c", "name": "A"]))
        XCTAssertEqual(claims.uniqueId, "o1")
        XCTAssertEqual(claims.tenantId, "t1")
        XCTAssertEqual(claims.preferredUsername, "a@b.c")
        XCTAssertEqual(claims.name, "A")
        XCTAssertEqual(try IDTokenClaims(raw: token(["sub": "s1"])).uniqueId, "s1")
    }

    func testValidationChecksAudienceIssuerNonceAndExpiry() throws {
        let good: [String: Any] = [
            "aud": "client", "iss": "https://idp/t/v2.0", "nonce": "n1", "exp": 1_800_000_100,
        ]
        try IDTokenClaims(raw: token(good)).validate(
            clientId: "client", issuer: "https://idp/t/v2.0", nonce: "n1", now: now)
        try IDTokenClaims(raw: token(good.merging(["aud": ["x", "client"]]) { $1 }))
            .validate(clientId: "client", issuer: nil, nonce: "n1", now: now)

        let cases: [(String, [String: Any])] = [
            ("audience", ["aud": "other"]),
            ("issuer", ["iss": "https://evil/t/v2.0"]),
            ("nonce", ["nonce": "n2"]),
            ("expired", ["exp": 1_799_999_000]),
        ]
        for (name, change) in cases {
            let claims = try IDTokenClaims(raw: token(good.merging(change) { $1 }))
            XCTAssertThrowsError(
                try claims.validate(clientId: "client", issuer: "https://idp/t/v2.0", nonce: "n1", now: now), name
            ) { error in
                XCTAssertEqual((error as NSError).userInfo[MSALInternalErrorCodeKey] as? Int, -42600)
            }
        }
        var withoutNonce = good
        withoutNonce["nonce"] = nil
        XCTAssertThrowsError(
            try IDTokenClaims(raw: token(withoutNonce)).validate(clientId: "client", issuer: nil, nonce: "n1", now: now)
        )
    }

    func testMalformedTokenIsRejected() {
        XCTAssertThrowsError(try IDTokenClaims(raw: "not-a-jwt"))
    }
}
