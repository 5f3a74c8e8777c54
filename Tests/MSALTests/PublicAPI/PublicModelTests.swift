import Foundation
import MSALNative
import XCTest

@testable import MSAL

final class MSALClaimsRequestTests: XCTestCase {
    func testParsesAndSerializesAClaimsChallenge() throws {
        let json =
            #"{"access_token":{"acrs":{"essential":true,"value":"c1"},"nbf":null},"id_token":{"auth_time":null}}"#
        let request = try MSALClaimsRequest(jsonString: json)
        XCTAssertEqual(request.claimsRequests(for: .accessToken).map(\.name), ["acrs", "nbf"])
        let acrs = try XCTUnwrap(request.claimsRequests(for: .accessToken).first?.additionalInfo)
        XCTAssertEqual(acrs.essential?.boolValue, true)
        XCTAssertEqual(acrs.value as? String, "c1")
        XCTAssertEqual(request.jsonString(), json)
    }

    func testBuildsRequestsAndRemovesThem() throws {
        let request = MSALClaimsRequest()
        XCTAssertNil(request.jsonString())
        let claim = MSALIndividualClaimRequest(name: "xms_cc")
        let info = MSALIndividualClaimRequestAdditionalInfo()
        info.values = ["cp1", "llt"]
        claim.additionalInfo = info
        try request.requestClaim(claim, for: .accessToken)
        XCTAssertEqual(request.jsonString(), #"{"access_token":{"xms_cc":{"values":["cp1","llt"]}}}"#)
        try request.removeClaimRequest(withName: "xms_cc", target: .accessToken)
        XCTAssertNil(request.jsonString())
        XCTAssertThrowsError(try request.requestClaim(MSALIndividualClaimRequest(name: ""), for: .idToken))
    }

    func testMalformedJSONIsAnInvalidParameter() {
        for json in ["", "[]", #"{"id_token":"x"}"#] {
            XCTAssertThrowsError(try MSALClaimsRequest(jsonString: json), json) { error in
                XCTAssertEqual((error as NSError).userInfo[MSALInternalErrorCodeKey] as? Int, -42000)
            }
        }
    }

    func testCapabilitiesAreMergedIntoTheAccessTokenClaims() throws {
        XCTAssertNil(MSALClaimsRequest.merged(nil, capabilities: nil))
        XCTAssertEqual(
            MSALClaimsRequest.merged(nil, capabilities: ["cp1"]), #"{"access_token":{"xms_cc":{"values":["cp1"]}}}"#)
        let challenge = try MSALClaimsRequest(jsonString: #"{"access_token":{"nbf":{"essential":true}}}"#)
        XCTAssertEqual(
            MSALClaimsRequest.merged(challenge, capabilities: ["cp1"]),
            #"{"access_token":{"nbf":{"essential":true},"xms_cc":{"values":["cp1"]}}}"#)
    }
}

final class MSALAccountTests: XCTestCase {
    func testEqualityUsesIdentifiersElseUsernames() {
        let a = MSALAccount(
            username: "A@x.com", homeAccountId: "u.t", environment: "e1", tenantProfiles: nil, homeIdToken: nil)
        let b = MSALAccount(
            username: "other", homeAccountId: "u.t", environment: "e2", tenantProfiles: nil, homeIdToken: nil)
        let c = MSALAccount(
            username: "a@X.com", homeAccountId: nil, environment: nil, tenantProfiles: nil, homeIdToken: nil)
        let d = MSALAccount(
            username: "A@x.com", homeAccountId: "U.t", environment: nil, tenantProfiles: nil, homeIdToken: nil)
        XCTAssertEqual(a, b)
        XCTAssertEqual(a, c)
        XCTAssertNotEqual(a, d)
        XCTAssertEqual(Set([a, b]).count, 1)
        XCTAssertEqual(a.homeAccountId?.objectId, "u")
        XCTAssertEqual(a.homeAccountId?.tenantId, "t")
        XCTAssertFalse(a.description.contains("A@x.com"))
    }

    func testClaimsAreFoundationObjectsDecodedFromTheIdToken() {
        let payload = Base64URL.encode(Array(#"{"name":"Alice","exp":5,"verified":true}"#.utf8))
        let account = MSALAccount(
            username: nil, homeAccountId: "u.t", environment: nil, tenantProfiles: nil,
            homeIdToken: "eyJhbGciOiJub25lIn0.\(payload).")
        XCTAssertEqual(account.accountClaims?["name"] as? String, "Alice")
        XCTAssertEqual((account.accountClaims?["exp"] as? NSNumber)?.intValue, 5)
        XCTAssertEqual(account.accountClaims?["verified"] as? Bool, true)
        let broken = MSALAccount(
            username: nil, homeAccountId: "u.t", environment: nil, tenantProfiles: nil, homeIdToken: "not a jwt")
        XCTAssertNil(broken.accountClaims)
    }
}

final class TokenParametersTests: XCTestCase {
    func testSilentParametersKeepMSALsShape() {
        let account = MSALAccount(
            username: "a", homeAccountId: "u.t", environment: nil, tenantProfiles: nil, homeIdToken: nil)
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
        XCTAssertEqual(parameters.scopes, ["User.Read"])
        XCTAssertFalse(parameters.forceRefresh)
        parameters.scopes = ["Mail.Read"]
        parameters.forceRefresh = true
        parameters.loginHint = "username"
        parameters.extraQueryParameters = ["slice": "test"]
        let snapshot = parameters.shared.withLock { $0 }
        parameters.scopes = ["changed"]
        XCTAssertEqual(snapshot.scopes, ["Mail.Read"])
        XCTAssertEqual(snapshot.account, account)
        XCTAssertTrue(parameters.forceRefresh)
    }

    func testEnumerationParametersDefaultToSignedInAccounts() {
        XCTAssertTrue(MSALAccountEnumerationParameters(identifier: "u.t").returnOnlySignedInAccounts)
        let parameters = MSALAccountEnumerationParameters(identifier: nil, username: "a")
        parameters.returnOnlySignedInAccounts = false
        XCTAssertFalse(parameters.returnOnlySignedInAccounts)
        XCTAssertEqual(MSALAccountEnumerationParameters(tenantProfileIdentifier: "oid").tenantProfileIdentifier, "oid")
    }
}
