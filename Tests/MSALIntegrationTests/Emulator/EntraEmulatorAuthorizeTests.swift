import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// The authorize endpoint's scripted sign-in and the authorization-code grant.
final class EntraEmulatorAuthorizeTests: XCTestCase {
    private var emulator: EntraEmulator!
    private var harness: EmulatorHarness!
    private let common = "https://login.microsoftonline.com/common"

    override func setUpWithError() throws {
        emulator = try EmulatorHarness.makeEmulator()
        harness = try EmulatorHarness(emulator)
    }

    override func tearDown() {
        emulator.stop()
        harness = nil
        emulator = nil
    }

    func testCodeFlowIssuesEntraShapedTokens() async throws {
        let redirect = try await harness.authorize(common)
        XCTAssertEqual(redirect["state"], "state-123")
        XCTAssertNotNil(redirect["session_state"])
        let info = try EmulatorHarness.clientInfo(redirect["client_info"])
        XCTAssertEqual(info, ["uid": EmulatorUser.alice.objectId, "utid": EmulatorTenant.contoso.id])

        let tokens = try await harness.signIn(common)
        XCTAssertEqual(tokens["token_type"] as? String, "Bearer")
        // As Entra reports them: the identity scopes as `profile openid email`, no offline_access.
        XCTAssertEqual(tokens["scope"] as? String, "https://graph.microsoft.com/User.Read profile openid email")
        XCTAssertEqual(tokens["expires_in"] as? Int, 3599)
        XCTAssertEqual(tokens["ext_expires_in"] as? Int, 3599)
        XCTAssertNil(tokens["refresh_in"])
        XCTAssertNil(tokens["foci"])
        XCTAssertTrue((tokens["refresh_token"] as? String)?.isEmpty == false)
        XCTAssertEqual(try EmulatorHarness.clientInfo(tokens["client_info"])["uid"], EmulatorUser.alice.objectId)

        let id = try EmulatorHarness.claims(tokens["id_token"])
        let issuer = "https://login.microsoftonline.com/\(EmulatorTenant.contoso.id)/v2.0"
        XCTAssertEqual(id["iss"]?.stringValue, issuer)
        XCTAssertEqual(id["aud"]?.stringValue, EmulatorHarness.clientId)
        XCTAssertEqual(id["tid"]?.stringValue, EmulatorTenant.contoso.id)
        XCTAssertEqual(id["oid"]?.stringValue, EmulatorUser.alice.objectId)
        XCTAssertEqual(id["preferred_username"]?.stringValue, EmulatorUser.alice.username)
        XCTAssertEqual(id["name"]?.stringValue, EmulatorUser.alice.displayName)
        XCTAssertEqual(id["nonce"]?.stringValue, "nonce-456")
        XCTAssertEqual(id["ver"]?.stringValue, "2.0")
        XCTAssertNotNil(id["sub"]?.stringValue)
        let iat = try XCTUnwrap(id["iat"]?.intValue)
        XCTAssertEqual(id["exp"]?.intValue, iat + 3600)
        XCTAssertLessThan(abs(Double(iat) - Date().timeIntervalSince1970), 5)

        let access = try EmulatorHarness.claims(tokens["access_token"])
        XCTAssertEqual(access["aud"]?.stringValue, "https://graph.microsoft.com")
        XCTAssertEqual(access["scp"]?.stringValue, "User.Read")
        XCTAssertEqual(access["appid"]?.stringValue, EmulatorHarness.clientId)
        XCTAssertEqual(access["iss"]?.stringValue, issuer)
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .authorizationCode), 1)
        XCTAssertEqual(emulator.signIns.count, 2)
    }

    func testPKCEMismatchAndMissingVerifierAreRejected() async throws {
        let first = try await harness.authorize(common)
        var response = try await harness.redeem(try XCTUnwrap(first["code"]), at: common, verifier: "wrong-verifier")
        try EmulatorHarness.assertEntraError(response, error: "invalid_grant", code: 501_481)

        let second = try await harness.authorize(common)
        response = try await harness.redeem(try XCTUnwrap(second["code"]), at: common, verifier: nil)
        try EmulatorHarness.assertEntraError(response, error: "invalid_request", code: 900_144)
    }

    func testCodesAreOneTimeBoundToRedirectURIAndExpire() async throws {
        let pkce = PKCEPair()
        let redirect = try await harness.authorize(common, pkce: pkce)
        let code = try XCTUnwrap(redirect["code"])
        var response = try await harness.redeem(
            code, at: common, redirectURI: "http://localhost:50999", verifier: pkce.verifier)
        try EmulatorHarness.assertEntraError(response, error: "invalid_grant", code: 50_011)
        response = try await harness.redeem(code, at: common, verifier: pkce.verifier)
        XCTAssertEqual(response.statusCode, 200)
        response = try await harness.redeem(code, at: common, verifier: pkce.verifier)
        try EmulatorHarness.assertEntraError(response, error: "invalid_grant", code: 54_005)

        let late = try await harness.authorize(common, pkce: pkce)
        emulator.advanceClock(by: 601)
        response = try await harness.redeem(try XCTUnwrap(late["code"]), at: common, verifier: pkce.verifier)
        try EmulatorHarness.assertEntraError(response, error: "invalid_grant", code: 70_008)

        let other = try await harness.authorize(common, pkce: pkce)
        response = try await harness.redeem(
            try XCTUnwrap(other["code"]), at: common, clientId: EmulatorClient.familyAppOne.clientId,
            verifier: pkce.verifier)
        try EmulatorHarness.assertEntraError(response, error: "invalid_grant", code: 70_000)
    }

    func testUnknownClientAndUnregisteredRedirectGetAnErrorPageNotARedirect() async throws {
        var response = try await harness.get(
            "\(common)/oauth2/v2.0/authorize",
            query: [
                ("client_id", "11111111-2222-3333-4444-555555555555"), ("response_type", "code"),
                ("redirect_uri", EmulatorHarness.redirectURI), ("scope", "openid"),
            ])
        XCTAssertEqual(response.statusCode, 400)
        XCTAssertNil(response.headers["Location"])
        XCTAssertTrue(String(decoding: response.body, as: UTF8.self).contains("AADSTS700016"))

        response = try await harness.get(
            "\(common)/oauth2/v2.0/authorize",
            query: [
                ("client_id", EmulatorHarness.clientId), ("response_type", "code"),
                ("redirect_uri", "https://evil.example/callback"), ("scope", "openid"),
            ])
        XCTAssertEqual(response.statusCode, 400)
        XCTAssertTrue(String(decoding: response.body, as: UTF8.self).contains("AADSTS50011"))
    }

    func testProtocolErrorsRedirectWithStateAndCorrelation() async throws {
        let bad = try await harness.get(
            "\(common)/oauth2/v2.0/authorize",
            query: [
                ("client_id", EmulatorHarness.clientId), ("response_type", "token"),
                ("redirect_uri", EmulatorHarness.redirectURI), ("scope", "openid"), ("state", "s1"),
            ])
        let location = try XCTUnwrap(bad.headers["Location"])
        let items = try XCTUnwrap(URLComponents(string: location)?.queryItems)
        let values = Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
        XCTAssertEqual(values["error"], "unsupported_response_type")
        XCTAssertTrue(values["error_description"]?.hasPrefix("AADSTS70005: ") == true)
        XCTAssertEqual(values["error_uri"], "https://login.microsoftonline.com/error?code=70005")
        XCTAssertEqual(values["state"], "s1")
        XCTAssertNotNil(values["correlation_id"])
    }

    func testLoginHintSessionPromptNoneAndPromptLogin() async throws {
        var redirect = try await harness.authorize(common, extra: [("prompt", "none")])
        XCTAssertEqual(redirect["error"], "interaction_required")
        XCTAssertTrue(redirect["error_description"]?.hasPrefix("AADSTS50058: ") == true)

        redirect = try await harness.authorize(common, extra: [("login_hint", "BOB@contoso.onmicrosoft.com")])
        XCTAssertEqual(try EmulatorHarness.clientInfo(redirect["client_info"])["uid"], EmulatorUser.bob.objectId)
        XCTAssertEqual(emulator.sessionUsername, EmulatorUser.bob.username)

        redirect = try await harness.authorize(common, extra: [("prompt", "none")])
        XCTAssertEqual(try EmulatorHarness.clientInfo(redirect["client_info"])["uid"], EmulatorUser.bob.objectId)
        redirect = try await harness.authorize(common)
        XCTAssertEqual(try EmulatorHarness.clientInfo(redirect["client_info"])["uid"], EmulatorUser.bob.objectId)
        redirect = try await harness.authorize(common, extra: [("prompt", "login")])
        XCTAssertEqual(try EmulatorHarness.clientInfo(redirect["client_info"])["uid"], EmulatorUser.alice.objectId)
        XCTAssertEqual(emulator.signIns.map(\.isFreshSignIn), [true, false, false, true])

        redirect = try await harness.authorize(common, extra: [("login_hint", "nobody@contoso.onmicrosoft.com")])
        XCTAssertTrue(redirect["error_description"]?.hasPrefix("AADSTS50034: ") == true)

        let logout = try await harness.get(
            "\(common)/oauth2/v2.0/logout",
            query: [("post_logout_redirect_uri", "http://localhost:50123/out"), ("state", "bye")])
        XCTAssertEqual(logout.statusCode, 302)
        XCTAssertEqual(logout.headers["Location"], "http://localhost:50123/out?state=bye")
        XCTAssertNil(emulator.sessionUsername)
        XCTAssertEqual(emulator.requestCount(.logout), 1)
    }

    func testScriptedDecisionsDeclinedConsentAndFailures() async throws {
        emulator.signInDecision = { request in
            XCTAssertEqual(request.scopes.first, "https://graph.microsoft.com/User.Read")
            return .signIn(username: EmulatorUser.bob.username, declinedScopes: ["Mail.Read"])
        }
        let scope = "https://graph.microsoft.com/User.Read https://graph.microsoft.com/Mail.Read openid offline_access"
        let tokens = try await harness.signIn(common, scope: scope)
        XCTAssertEqual(tokens["scope"] as? String, "https://graph.microsoft.com/User.Read openid email")
        XCTAssertEqual(emulator.signIns.last?.declinedScopes, ["Mail.Read"])
        // The decline is remembered for Bob and the app: refreshing does not grant Mail.Read either.
        let refreshed = try await harness.refresh(
            try XCTUnwrap(tokens["refresh_token"] as? String), at: common, scope: scope)
        XCTAssertEqual(
            try EmulatorHarness.json(refreshed)["scope"] as? String,
            "https://graph.microsoft.com/User.Read openid email")

        emulator.signInDecision = { _ in .declineConsent }
        var redirect = try await harness.authorize(common)
        XCTAssertEqual(redirect["error"], "access_denied")
        XCTAssertTrue(redirect["error_description"]?.hasPrefix("AADSTS65004: ") == true)

        emulator.signInDecision = { _ in .fail(EntraErrorResponse(error: "login_required", code: 50_058, message: "x"))
        }
        redirect = try await harness.authorize(common)
        XCTAssertEqual(redirect["error"], "login_required")
        XCTAssertEqual(redirect["state"], "state-123")
    }

    func testDefaultScopeGrantsRegisteredPermissionsAndOneResourcePerToken() async throws {
        var tokens = try await harness.signIn(
            common, scope: "https://graph.microsoft.com/.default openid offline_access")
        XCTAssertEqual(
            tokens["scope"] as? String,
            "https://graph.microsoft.com/User.Read https://graph.microsoft.com/Mail.Read openid email")
        XCTAssertEqual(try EmulatorHarness.claims(tokens["access_token"])["scp"]?.stringValue, "User.Read Mail.Read")

        tokens = try await harness.signIn(common, scope: "api://contoso-api/.default openid")
        XCTAssertEqual(tokens["scope"] as? String, "api://contoso-api/access_as_user openid email")
        XCTAssertNil(tokens["refresh_token"])

        let pkce = PKCEPair()
        let scope = "User.Read api://contoso-api/access_as_user openid"
        let redirect = try await harness.authorize(common, scope: scope, pkce: pkce)
        let response = try await harness.redeem(
            try XCTUnwrap(redirect["code"]), at: common, verifier: pkce.verifier, scope: scope)
        try EmulatorHarness.assertEntraError(response, error: "invalid_scope", code: 28_000)
    }

    func testFragmentResponseModeAndInstanceAwareCloud() async throws {
        emulator.add(
            tenant: EmulatorTenant(
                id: "0e4c7f1a-2b3d-4e5f-8a9b-c0d1e2f3a4b5", domains: ["gov.onmicrosoft.us"],
                cloudHost: "login.microsoftonline.us"))
        emulator.add(
            user: EmulatorUser(
                username: "gina@gov.onmicrosoft.us", displayName: "Gina Gov",
                objectId: "5f6a7b8c-9d0e-4f1a-8b2c-3d4e5f6a7b8c", homeTenantId: "0e4c7f1a-2b3d-4e5f-8a9b-c0d1e2f3a4b5"))
        let redirect = try await harness.authorize(
            common,
            extra: [
                ("response_mode", "fragment"), ("instance_aware", "true"), ("login_hint", "gina@gov.onmicrosoft.us"),
            ])
        XCTAssertNotNil(redirect["code"])
        XCTAssertEqual(redirect["cloud_instance_host_name"], "login.microsoftonline.us")
        XCTAssertEqual(redirect["cloud_instance_name"], "microsoftonline.us")
        let request = try XCTUnwrap(emulator.recentRequests(to: .authorize).last)
        XCTAssertEqual(request.queryValue("instance_aware"), "true")
        XCTAssertEqual(request.host, "login.microsoftonline.com")
    }

    func testMicrosoftAccountGuestB2CCIAMAndADFSIdentities() async throws {
        // MSA at consumers.
        var tokens = try await harness.signIn(
            "https://login.microsoftonline.com/consumers", extra: [("login_hint", EmulatorUser.carol.username)])
        XCTAssertEqual(
            try EmulatorHarness.claims(tokens["id_token"])["tid"]?.stringValue, EmulatorTenant.microsoftAccountsTenantId
        )
        // A work account cannot use consumers.
        let refused = try await harness.authorize(
            "https://login.microsoftonline.com/consumers", extra: [("login_hint", EmulatorUser.alice.username)])
        XCTAssertTrue(refused["error_description"]?.hasPrefix("AADSTS50020: ") == true)

        // Alice as a guest in Fabrikam: Fabrikam's tid and guest oid, home client_info.
        tokens = try await harness.signIn(
            "https://login.microsoftonline.com/fabrikam.onmicrosoft.com",
            extra: [("login_hint", EmulatorUser.alice.username)])
        let guest = try EmulatorHarness.claims(tokens["id_token"])
        XCTAssertEqual(guest["tid"]?.stringValue, EmulatorTenant.fabrikam.id)
        XCTAssertEqual(guest["oid"]?.stringValue, EmulatorUser.alice.guestProfiles[EmulatorTenant.fabrikam.id])
        XCTAssertEqual(
            try EmulatorHarness.clientInfo(tokens["client_info"]),
            ["uid": EmulatorUser.alice.objectId, "utid": EmulatorTenant.contoso.id])

        // B2C: uid is <oid>-<policy>.
        let b2c = emulator.authority(.b2cLogin(tenant: "contosob2c.onmicrosoft.com", policy: "B2C_1_SignIn"))
        tokens = try await harness.signIn(b2c.absoluteString, extra: [("login_hint", EmulatorUser.dave.username)])
        XCTAssertEqual(
            try EmulatorHarness.clientInfo(tokens["client_info"]),
            ["uid": "\(EmulatorUser.dave.objectId)-b2c_1_signin", "utid": EmulatorTenant.contosoB2C.id])
        let b2cClaims = try EmulatorHarness.claims(tokens["id_token"])
        XCTAssertEqual(b2cClaims["tfp"]?.stringValue, "B2C_1_SignIn")
        XCTAssertEqual(
            b2cClaims["iss"]?.stringValue, "https://contosob2c.b2clogin.com/\(EmulatorTenant.contosoB2C.id)/v2.0/")

        // CIAM.
        let ciam = emulator.authority(.ciam("contosociam.onmicrosoft.com"))
        tokens = try await harness.signIn(ciam.absoluteString, extra: [("login_hint", EmulatorUser.erin.username)])
        XCTAssertEqual(
            try EmulatorHarness.claims(tokens["id_token"])["tid"]?.stringValue, EmulatorTenant.contosoCIAM.id)

        // AD FS: no client_info; upn; issuer /adfs.
        let pkce = PKCEPair()
        let adfs = "https://adfs.contoso.com/adfs"
        let query = [
            ("client_id", EmulatorHarness.clientId), ("response_type", "code"),
            ("redirect_uri", EmulatorHarness.redirectURI), ("scope", "openid offline_access"),
            ("login_hint", EmulatorUser.frank.username), ("client_info", "1"),
            ("code_challenge", pkce.challenge), ("code_challenge_method", "S256"),
        ]
        let response = try await harness.get("\(adfs)/oauth2/authorize", query: query)
        let location = try XCTUnwrap(response.headers["Location"])
        let items = try XCTUnwrap(URLComponents(string: location)?.queryItems)
        XCTAssertNil(items.first { $0.name == "client_info" })
        let code = try XCTUnwrap(items.first { $0.name == "code" }?.value)
        let token = try await harness.post(
            "\(adfs)/oauth2/token",
            [
                ("client_id", EmulatorHarness.clientId), ("grant_type", "authorization_code"), ("code", code),
                ("redirect_uri", EmulatorHarness.redirectURI), ("code_verifier", pkce.verifier),
                ("scope", "openid offline_access"), ("client_info", "1"),
            ])
        let body = try EmulatorHarness.json(token)
        XCTAssertNil(body["client_info"])
        let adfsClaims = try EmulatorHarness.claims(body["id_token"])
        XCTAssertEqual(adfsClaims["iss"]?.stringValue, adfs)
        XCTAssertEqual(adfsClaims["upn"]?.stringValue, EmulatorUser.frank.username)
    }

    func testPasswordGrantForSeeding() async throws {
        var response = try await harness.post(
            "\(common.replacingOccurrences(of: "common", with: "organizations"))/oauth2/v2.0/token",
            [
                ("client_id", EmulatorHarness.clientId), ("grant_type", "password"),
                ("username", EmulatorUser.bob.username), ("password", EmulatorUser.bob.password),
                ("scope", "User.Read openid profile offline_access"), ("client_info", "1"),
            ])
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(try EmulatorHarness.json(response)["scope"] as? String, "User.Read profile openid email")
        response = try await harness.post(
            "\(common)/oauth2/v2.0/token",
            [
                ("client_id", EmulatorHarness.clientId), ("grant_type", "password"),
                ("username", EmulatorUser.bob.username), ("password", "wrong"), ("scope", "openid"),
            ])
        try EmulatorHarness.assertEntraError(response, error: "invalid_grant", code: 50_126)
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .password), 2)
        XCTAssertEqual(emulator.recentRequests(to: .token).last?.formValue("username"), EmulatorUser.bob.username)
    }
}
