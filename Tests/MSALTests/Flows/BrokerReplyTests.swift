import Foundation
import XCTest

@testable import MSAL

/// The broker's replies parsed into typed values, and the decisions taken from them, without a bus.
final class BrokerReplyTests: XCTestCase {
    private let correlationId = UUID()

    private func token(_ text: String) throws -> BrokerToken {
        guard case .token(let token) = try BrokerReply.token(text) else {
            XCTFail("not a token: \(text)")
            throw BrokerReply.Malformed(reason: "test")
        }
        return token
    }

    private func malformed(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> String? {
        do {
            _ = try BrokerReply.token(text)
            XCTFail("accepted \(text)", file: file, line: line)
            return nil
        } catch {
            return error.reason
        }
    }

    // MARK: Shapes

    func testGrantedScopesAreAStringOrAnArray() throws {
        let string = try token(#"{"brokerTokenResponse":{"accessToken":"at","grantedScopes":"User.Read Mail.Read"}}"#)
        XCTAssertEqual(string.grantedScopes, ["User.Read", "Mail.Read"])
        let array = try token(
            #"{"brokerTokenResponse":{"accessToken":"at","grantedScopes":["User.Read","Mail.Read"]}}"#)
        XCTAssertEqual(array.grantedScopes, ["User.Read", "Mail.Read"])
        XCTAssertEqual(
            malformed(#"{"brokerTokenResponse":{"accessToken":"at","grantedScopes":[1]}}"#),
            "brokerTokenResponse.grantedScopes.[0] has the wrong type")
    }

    func testExpiresOnIsEpochMillisecondsAsANumberOrAString() throws {
        let number = try token(
            #"{"brokerTokenResponse":{"accessToken":"at","expiresOn":1800000000999,"extendedExpiresOn":"1800003600000"}}"#
        )
        XCTAssertEqual(number.expiresOnSeconds, 1_800_000_000)
        XCTAssertEqual(number.extendedExpiresOnSeconds, 1_800_003_600)
        let fractional = try token(#"{"brokerTokenResponse":{"accessToken":"at","expiresOn":1.8e12}}"#)
        XCTAssertEqual(fractional.expiresOnSeconds, 1_800_000_000)
        for bad in [#""soon""#, "true", "-5", "1e300", "[1]"] {
            XCTAssertEqual(
                malformed(#"{"brokerTokenResponse":{"accessToken":"at","expiresOn":\#(bad)}}"#),
                "brokerTokenResponse.expiresOn has the wrong type", bad)
        }
    }

    func testTheTokenBodyIsTheTokenEndpointsShape() throws {
        let reply = try token(
            #"{"brokerTokenResponse":{"accessToken":"at","idToken":"idt","account":{"homeAccountId":"u.t","clientInfo":"ci"},"#
                + #""expiresOn":1800000000000,"grantedScopes":"a b","accessTokenType":"Bearer","unknown":{"x":1}}}"#)
        XCTAssertEqual(reply.clientInfo, "ci", "the account's client info when the reply has none")
        let body = try XCTUnwrap(JSONSerialization.jsonObject(with: reply.tokenResponseBody()) as? [String: Any])
        XCTAssertEqual(body["access_token"] as? String, "at")
        XCTAssertEqual(body["id_token"] as? String, "idt")
        XCTAssertEqual(body["client_info"] as? String, "ci")
        XCTAssertEqual(body["expires_on"] as? Int, 1_800_000_000)
        XCTAssertEqual(body["scope"] as? String, "a b")
        XCTAssertEqual(body["token_type"] as? String, "Bearer")
    }

    func testOlderBrokersTopLevelTokenIsAccepted() throws {
        XCTAssertEqual(try token(#"{"accessToken":"at"}"#).accessToken, "at")
    }

    func testWrongTypesAreRefusedNamingOurFieldOnly() {
        XCTAssertEqual(malformed("<html>not json"), "the reply is not JSON")
        XCTAssertEqual(malformed("[1,2]"), "the reply is not a JSON object")
        XCTAssertEqual(malformed(#"{"brokerTokenResponse":"eyJsecret"}"#), "brokerTokenResponse has the wrong type")
        XCTAssertEqual(
            malformed(#"{"brokerTokenResponse":{"accessToken":42}}"#),
            "brokerTokenResponse.accessToken has the wrong type")
        XCTAssertEqual(malformed(#"{"brokerTokenResponse":{}}"#), "the token response has no access token")
        XCTAssertEqual(
            malformed(#"{"brokerTokenResponse":{"accessToken":""}}"#), "the token response has no access token")
        XCTAssertEqual(
            malformed(#"{"brokerTokenResponse":{"accessToken":"at","account":{"username":"alice@contoso.com"}}}"#),
            "brokerTokenResponse.account.homeAccountId is missing")
        XCTAssertEqual(
            malformed(#"{"brokerTokenResponse":{"error":{"status":"x","context":["alice@contoso.com"]}}}"#),
            "brokerTokenResponse.error.context has the wrong type")
    }

    func testFailuresInsideOrOutsideTheTokenResponse() throws {
        XCTAssertEqual(
            try BrokerReply.token(
                #"{"brokerTokenResponse":{"error":{"status":"InteractionRequired","subStatus":0,"context":"c"}}}"#),
            .failure(BrokerFailure(status: "InteractionRequired", subStatus: "0", context: "c")))
        XCTAssertEqual(try BrokerReply.token(#"{"error":{"status":7}}"#), .failure(BrokerFailure(status: "7")))
        XCTAssertEqual(try BrokerReply.token(#"{"error":{}}"#), .failure(BrokerFailure(status: "Unexpected")))
    }

    func testAccountsReplies() throws {
        let reply = #"{"accounts":[{"homeAccountId":"u.t","username":"alice@contoso.com","realm":"t","extra":1}]}"#
        guard case .accounts(let accounts) = try BrokerReply.accounts(reply) else { return XCTFail("no accounts") }
        XCTAssertEqual(accounts.map(\.homeAccountId), ["u.t"])
        XCTAssertEqual(try BrokerReply.accounts("{}"), .accounts([]))
        XCTAssertEqual(
            try BrokerReply.accounts(#"{"error":{"status":"Unexpected"}}"#),
            .failure(BrokerFailure(status: "Unexpected")))
        XCTAssertThrowsError(try BrokerReply.accounts(#"{"accounts":{"homeAccountId":"u.t"}}"#)) { error in
            XCTAssertEqual((error as? BrokerReply.Malformed)?.reason, "accounts has the wrong type")
        }
        XCTAssertNil(try BrokerReply.failure("{}"))
        XCTAssertEqual(try BrokerReply.failure(#"{"error":{"status":"x"}}"#), BrokerFailure(status: "x"))
    }

    // MARK: Decisions

    func testFailureKinds() {
        for status in ["InteractionRequired", "AccountUnusable", "accountNotFound", "2"] {
            XCTAssertEqual(BrokerFailure(status: status).kind, .interactionRequired, status)
        }
        for status in ["UserCanceled", "usercancelled", "ApplicationCanceled", "7", "8"] {
            XCTAssertEqual(BrokerFailure(status: status).kind, .userCanceled, status)
        }
        for status in ["Unexpected", "3", "", "InteractionRequiredX"] {
            XCTAssertEqual(BrokerFailure(status: status).kind, .other, status)
        }
    }

    func testErrorsCarryTheStatusAndAADSTSCodesButNeverTheContext() {
        let echo = "alice@contoso.com asked for eyJhbGciOi.eyJzdWIi.sig: AADSTS50076 then AADSTS50076, AADSTS7000"
        let error = BrokerFlow.error(
            BrokerFailure(status: "InteractionRequired", subStatus: "6", context: echo), correlationId: correlationId)
        XCTAssertEqual(error.code, MSALError.interactionRequired.rawValue)
        XCTAssertEqual(error.userInfo[MSALBrokerStatusKey] as? String, "InteractionRequired:6")
        let message = error.userInfo[MSALErrorDescriptionKey] as? String ?? ""
        XCTAssertTrue(message.contains("AADSTS50076, AADSTS7000"), message)
        XCTAssertFalse(message.contains("alice"), message)
        XCTAssertFalse(message.contains("eyJ"), message)

        let canceled = BrokerFlow.error(BrokerFailure(status: "UserCanceled"), correlationId: correlationId)
        XCTAssertEqual(canceled.code, MSALError.userCanceled.rawValue)

        // A status that is not an identifier may be an echo: it is not passed on.
        let odd = BrokerFlow.error(
            BrokerFailure(status: "user alice@contoso.com", subStatus: "x y"), correlationId: correlationId)
        XCTAssertEqual(odd.userInfo[MSALBrokerStatusKey] as? String, "Unexpected")
        XCTAssertFalse((odd.userInfo[MSALErrorDescriptionKey] as? String ?? "").contains("alice"))
    }

    func testDBusErrorMessagesAreNotShown() {
        let text = BrokerFlow.describe(
            .failed(name: "com.microsoft.identity.Error", message: "bad request for alice@contoso.com"))
        XCTAssertEqual(text, "the broker failed: com.microsoft.identity.Error")
        XCTAssertEqual(
            BrokerFlow.describe(.failed(name: "not a name!", message: "x")), "the broker failed: a D-Bus error")
    }

    func testMalformedRepliesAreCorruptedResponses() {
        XCTAssertThrowsError(
            try BrokerFlow.parse(
                "acquireTokenSilently", #"{"brokerTokenResponse":{"accessToken":1}}"#,
                correlationId: correlationId, BrokerReply.token)
        ) { error in
            let error = error as NSError
            XCTAssertEqual(
                error.userInfo[MSALInternalErrorCodeKey] as? Int,
                MSALInternalError.internalErrorBrokerCorruptedResponse.rawValue)
        }
    }

    func testSilentGoesToTheBrokerForItsAccountsAndUnknownOnes() {
        XCTAssertTrue(BrokerFlow.silentGoesToBroker(accountSource: "broker"))
        XCTAssertTrue(BrokerFlow.silentGoesToBroker(accountSource: nil))
        XCTAssertFalse(BrokerFlow.silentGoesToBroker(accountSource: "authorization_code"))
        XCTAssertFalse(BrokerFlow.silentGoesToBroker(accountSource: "urn:ietf:params:oauth:grant-type:device_code"))
    }

    func testMergedAccountsOnePerHomeAccountIdCachedFirst() {
        let cached = MSALAccount(
            username: "alice@contoso.com", homeAccountId: "uid1.utid", environment: "login.microsoftonline.com",
            tenantProfiles: nil, homeIdToken: nil)
        let listed = [
            BrokerAccount(homeAccountId: "UID1.UTID", username: "other"),
            BrokerAccount(
                homeAccountId: "uid2.utid", realm: "utid", localAccountId: "uid2", username: "bob@contoso.com"),
            BrokerAccount(homeAccountId: "uid2.utid", username: "again"),
            BrokerAccount(homeAccountId: ""),
        ]
        let merged = BrokerFlow.merged(cached: [cached], broker: listed)
        XCTAssertEqual(merged.map(\.identifier), ["uid1.utid", "uid2.utid"])
        XCTAssertEqual(merged.map(\.username), ["alice@contoso.com", "bob@contoso.com"])
        XCTAssertEqual(merged[1].tenantProfiles?.first?.isHomeTenantProfile, true)
        XCTAssertEqual(merged[1].tenantProfiles?.first?.identifier, "uid2")
        XCTAssertEqual(merged.map(\.isSSOAccount), [false, true])
    }

    func testBrokerAccountsAreFilteredAsCachedOnes() {
        let account = BrokerAccount(homeAccountId: "uid.utid", localAccountId: "oid", username: "Alice@Contoso.com")
        XCTAssertTrue(DeviceAccountsFlow.matches(account, AccountQuery()))
        XCTAssertTrue(DeviceAccountsFlow.matches(account, AccountQuery(username: "alice@contoso.com")))
        XCTAssertTrue(DeviceAccountsFlow.matches(account, AccountQuery(identifier: "UID.utid")))
        XCTAssertTrue(DeviceAccountsFlow.matches(account, AccountQuery(tenantProfileIdentifier: "oid")))
        XCTAssertFalse(DeviceAccountsFlow.matches(account, AccountQuery(username: "bob@contoso.com")))
        XCTAssertFalse(DeviceAccountsFlow.matches(account, AccountQuery(tenantProfileIdentifier: "other")))
    }
}
