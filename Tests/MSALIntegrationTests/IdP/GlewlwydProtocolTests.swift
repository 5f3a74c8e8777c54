import Foundation
import MSALNative
import XCTest

@testable import MSAL

/// The library's protocol pieces against a real, independently written OpenID Connect server:
/// glewlwyd on loopback HTTPS (see `GlewlwydServer`). Discovery through `AuthorityResolver`, the
/// authorization code grant with PKCE through a headless browser, refresh-token rotation, the
/// device grant through `DeviceCodePoller`, expiry on the short-lived issuer, and how the
/// library maps glewlwyd's non-standard error answers.
final class GlewlwydProtocolTests: XCTestCase {
    private var server: GlewlwydServer!
    private var transport: CurlHTTPTransport!
    private var tokens: TokenClient!

    override func setUp() async throws {
        server = try await GlewlwydServer.shared()
        transport = CurlHTTPTransport(
            configuration: .init(caFile: server.caFile, retryPolicy: RetryPolicy(retryCount: 0), timeout: 15))
        tokens = TokenClient(transport: transport, now: { Date() })
    }

    // MARK: Discovery

    func testDiscoveryOfBothIssuersThroughTheAuthorityResolver() async throws {
        let authority = try Authority.oidc(issuer: server.issuer.absoluteString)
        XCTAssertEqual(authority.urlString, server.issuer.absoluteString)
        XCTAssertEqual(authority.realm, "api")
        XCTAssertEqual(authority.environment, "127.0.0.1:\(server.baseURL.port ?? 0)")
        XCTAssertFalse(authority.supportsClientInfo)
        XCTAssertEqual(try MSALOIDCAuthority(issuer: server.issuer).url, server.issuer)

        let main = try await resolve(server.issuer)
        XCTAssertEqual(main.issuer, server.issuer.absoluteString)
        XCTAssertEqual(main.authorizationEndpoint.absoluteString, server.issuer.absoluteString + "/auth")
        XCTAssertEqual(main.tokenEndpoint.absoluteString, server.issuer.absoluteString + "/token")
        XCTAssertEqual(
            main.deviceAuthorizationEndpoint?.absoluteString, server.issuer.absoluteString + "/device_authorization")
        XCTAssertEqual(main.jwksURI?.absoluteString, server.issuer.absoluteString + "/jwks")
        XCTAssertEqual(main.endSessionEndpoint?.absoluteString, server.issuer.absoluteString + "/end_session")

        let short = try await resolve(server.shortIssuer)
        XCTAssertEqual(short.issuer, server.shortIssuer.absoluteString)
        XCTAssertEqual(short.tokenEndpoint.absoluteString, server.shortIssuer.absoluteString + "/token")
    }

    func testPlainHTTPIssuerOnLoopbackIsRefusedUnlessKnown() async throws {
        var http = try XCTUnwrap(URLComponents(url: server.issuer, resolvingAgainstBaseURL: false))
        http.scheme = "http"
        let authority = try Authority.oidc(issuer: try XCTUnwrap(http.url).absoluteString)
        do {
            _ = try await AuthorityResolver(transport: transport).resolve(
                authority, knownAuthorities: [], correlationId: UUID())
            XCTFail("an http authority that is not in knownAuthorities must be refused")
        } catch {
            XCTAssertEqual((error as NSError).domain, MSALErrorDomain)
            XCTAssertEqual((error as NSError).code, MSALError.internal.rawValue)
            XCTAssertEqual((error as NSError).userInfo[MSALInternalErrorCodeKey] as? Int, -42000)
        }
    }

    // MARK: Authorization code + PKCE

    func testAuthorizationCodeWithPKCEGivesSignedTokensForTheUser() async throws {
        let browser = try GlewlwydBrowser(server: server)
        let signIn = try await signIn(browser: browser)
        let redirect = query(of: signIn.redirect)
        XCTAssertTrue(signIn.redirect.absoluteString.hasPrefix(server.loopbackRedirectURI + "?"))
        XCTAssertEqual(redirect["state"], signIn.state)
        XCTAssertNotNil(redirect["session_state"])

        let response = try await tokens.redeem(redeemRequest(signIn), correlationId: UUID())
        // Quirk: lowercase "bearer".
        XCTAssertEqual(response.tokenType.lowercased(), "bearer")
        XCTAssertEqual(Set((response.scope ?? "").split(separator: " ").map(String.init)), Set(server.scopes))
        XCTAssertNotNil(response.refreshToken)
        XCTAssertGreaterThan(response.expiresOn.timeIntervalSinceNow, 3000)

        let idToken = try IDTokenClaims(raw: try XCTUnwrap(response.idToken))
        try idToken.validate(
            clientId: server.clientId, issuer: signIn.configuration.issuer, nonce: signIn.nonce, now: Date())
        XCTAssertEqual(idToken.preferredUsername, server.user)
        XCTAssertEqual(idToken.name, server.userDisplayName)
        XCTAssertEqual(idToken.claims["email"]?.stringValue, server.userEmail)
        XCTAssertNotNil(idToken.subject)
        XCTAssertNil(idToken.tenantId)
        XCTAssertThrowsError(
            try idToken.validate(
                clientId: server.clientId, issuer: signIn.configuration.issuer, nonce: "another-nonce", now: Date()))
        XCTAssertThrowsError(
            try idToken.validate(
                clientId: "another-client", issuer: signIn.configuration.issuer, nonce: signIn.nonce, now: Date()))
        XCTAssertThrowsError(
            try idToken.validate(
                clientId: server.clientId, issuer: server.shortIssuer.absoluteString, nonce: signIn.nonce, now: Date()))

        // Both tokens are RS256 JWTs signed with the key the issuer's JWKS names by kid; the other
        // issuer has its own key.
        let keys = try await jwks(signIn.configuration)
        let shortKeys = try await jwks(try await resolve(server.shortIssuer))
        for token in [try XCTUnwrap(response.idToken), try XCTUnwrap(response.accessToken)] {
            let jwt = try JWT(compact: token)
            XCTAssertEqual(jwt.algorithm, "RS256")
            let kid = try XCTUnwrap(jwt.keyID)
            XCTAssertTrue(try jwt.verifySignature(using: try XCTUnwrap(keys[kid], "no JWKS key \(kid)")))
            XCTAssertNil(shortKeys[kid])
            XCTAssertFalse(try jwt.verifySignature(using: try XCTUnwrap(shortKeys.values.first)))
        }
        let accessToken = try JWT(compact: try XCTUnwrap(response.accessToken))
        XCTAssertEqual(accessToken.header["typ"]?.stringValue, "at+jwt")
        XCTAssertEqual(accessToken.payload["client_id"]?.stringValue, server.clientId)

        // The access token works at userinfo, for the same subject.
        let userInfo = try await transport.send(
            HTTPRequest(
                url: server.issuer.appendingPathComponent("userinfo"),
                headers: [("Authorization", "Bearer \(try XCTUnwrap(response.accessToken))")]))
        XCTAssertEqual(userInfo.statusCode, 200)
        let claims = try XCTUnwrap(try JSONValue(parsing: userInfo.body).objectValue)
        XCTAssertEqual(claims["sub"]?.stringValue, idToken.subject)
        XCTAssertEqual(claims["preferred_username"]?.stringValue, server.user)
    }

    func testWrongVerifierIsAnOAuthErrorAndDoesNotBurnTheCode() async throws {
        let signIn = try await signIn(browser: try GlewlwydBrowser(server: server))
        let wrong = try PKCE()
        let wrongRequest = TokenRequest.authorizationCode(
            signIn.code, codeVerifier: wrong.verifier, redirectURI: server.loopbackRedirectURI,
            endpoint: signIn.configuration.tokenEndpoint, common: common())

        // Quirk: 403 {"error":"invalid_code"} instead of 400 invalid_grant; the token client reads
        // OAuth error bodies of every 4xx, so the app sees the server's error (an unknown OAuth
        // error: -42104) with the status.
        let failure = try await redeemFailure(wrongRequest)
        XCTAssertEqual(failure.statusCode, 403)
        assertOAuthError(MSALErrors.error(for: failure), "invalid_code", status: 403)

        // The code survived the wrong verifier; once redeemed, a replay is the same 403.
        _ = try await tokens.redeem(redeemRequest(signIn), correlationId: UUID())
        let replay = try await redeemFailure(redeemRequest(signIn))
        XCTAssertEqual(replay.statusCode, 403)
        assertOAuthError(MSALErrors.error(for: replay), "invalid_code", status: 403)
    }

    func testAuthorizeErrorsComeBackAsRedirectsOrA403() async throws {
        let configuration = try await resolve(server.issuer)
        let browser = try GlewlwydBrowser(server: server)
        let pkce = try PKCE()

        // Quirk: nonce is mandatory whenever the scope has openid.
        let noNonce = try await browser.authorize(
            url: authorizeURL(configuration, pkce: pkce, state: "s1", nonce: nil),
            redirectPrefix: server.loopbackRedirectURI)
        XCTAssertEqual(query(of: noNonce)["error"], "invalid_request")
        XCTAssertEqual(query(of: noNonce)["state"], "s1")

        // PKCE is required for the public client; the error has no description.
        let noPKCE = try await browser.authorize(
            url: authorizeURL(configuration, pkce: nil, state: "s2", nonce: "n2"),
            redirectPrefix: server.loopbackRedirectURI)
        XCTAssertEqual(query(of: noPKCE)["error"], "invalid_request")

        // A redirect URI that is not registered exactly (another port) gets 403 and no redirect.
        let otherPort = "http://127.0.0.1:8401/callback"
        do {
            _ = try await browser.authorize(
                url: authorizeURL(configuration, pkce: pkce, state: "s3", nonce: "n3", redirectURI: otherPort),
                redirectPrefix: otherPort)
            XCTFail("an unregistered redirect URI must not be redirected to")
        } catch let failure as GlewlwydBrowser.Failure {
            XCTAssertTrue(failure.description.contains("HTTP 403"), failure.description)
        }
    }

    func testCustomSchemeRedirectForACustomWebView() async throws {
        let configuration = try await resolve(server.issuer)
        let redirectURI = try XCTUnwrap(server.redirectURIs.first { !$0.hasPrefix("http") })
        let pkce = try PKCE()
        let redirect = try await GlewlwydBrowser(server: server).authorize(
            url: authorizeURL(configuration, pkce: pkce, state: "s1", nonce: "n1", redirectURI: redirectURI),
            redirectPrefix: redirectURI)
        XCTAssertEqual(redirect.scheme, "msauth.swift-msal-tests")
        let code = try XCTUnwrap(query(of: redirect)["code"], redirect.absoluteString)
        let response = try await tokens.redeem(
            .authorizationCode(
                code, codeVerifier: pkce.verifier, redirectURI: redirectURI, endpoint: configuration.tokenEndpoint,
                common: common()),
            correlationId: UUID())
        XCTAssertNotNil(response.idToken)
    }

    func testPromptNoneIsInteractionRequiredWithoutASessionAndNeedsAnIDTokenHintWithOne() async throws {
        let configuration = try await resolve(server.issuer)
        let browser = try GlewlwydBrowser(server: server)
        let pkce = try PKCE()
        let none = [URLQueryItem(name: "prompt", value: "none")]

        let redirect = try await browser.authorize(
            url: authorizeURL(configuration, pkce: pkce, state: "s1", nonce: "n1", extra: none),
            redirectPrefix: server.loopbackRedirectURI)
        let parameters = query(of: redirect)
        XCTAssertEqual(parameters["state"], "s1")
        let serverError = try XCTUnwrap(OAuthServerError(parameters: parameters))
        XCTAssertEqual(serverError.error, "interaction_required")
        let error = MSALErrors.serverError(serverError, endpoint: .authorize)
        XCTAssertEqual(error.code, MSALError.interactionRequired.rawValue)

        // With a session, quirk: prompt=none also needs id_token_hint (OIDC Core only recommends it).
        let interactive = try await signIn(browser: browser)
        let interactiveTokens = try await tokens.redeem(redeemRequest(interactive), correlationId: UUID())
        let idToken = try XCTUnwrap(interactiveTokens.idToken)
        let noHint = try await browser.authorize(
            url: authorizeURL(configuration, pkce: pkce, state: "s2", nonce: "n2", extra: none),
            redirectPrefix: server.loopbackRedirectURI)
        XCTAssertEqual(query(of: noHint)["error"], "invalid_request")
        XCTAssertEqual(query(of: noHint)["error_description"], "id_token mandatory")
        XCTAssertTrue(noHint.absoluteString.contains("error_description=id_token+mandatory"))

        // With the hint, the request completes without the login page.
        let silent = try await browser.authorize(
            url: authorizeURL(
                configuration, pkce: pkce, state: "s3", nonce: "n3",
                extra: none + [URLQueryItem(name: "id_token_hint", value: idToken)]),
            redirectPrefix: server.loopbackRedirectURI)
        XCTAssertNil(query(of: silent)["error"], silent.absoluteString)
        XCTAssertNotNil(query(of: silent)["code"], silent.absoluteString)
        XCTAssertEqual(query(of: silent)["state"], "s3")
    }

    // MARK: Refresh tokens

    func testRefreshTokensRotateAndReusingAnOldOneDisablesTheChain() async throws {
        let signIn = try await signIn(browser: try GlewlwydBrowser(server: server))
        let first = try await tokens.redeem(redeemRequest(signIn), correlationId: UUID())
        let token0 = try XCTUnwrap(first.refreshToken)

        // Quirk: `scope` on refresh is ignored (the full original scope comes back), there is no
        // id_token, and every answer carries a new refresh token.
        let second = try await tokens.redeem(
            refresh(token0, signIn.configuration, scopes: ["openid"]), correlationId: UUID())
        let token1 = try XCTUnwrap(second.refreshToken)
        XCTAssertNotEqual(token1, token0)
        XCTAssertNil(second.idToken)
        XCTAssertNotNil(second.accessToken)
        XCTAssertEqual(Set((second.scope ?? "").split(separator: " ").map(String.init)), Set(server.scopes))
        let third = try await tokens.redeem(refresh(token1, signIn.configuration), correlationId: UUID())
        let token2 = try XCTUnwrap(third.refreshToken)
        XCTAssertNotEqual(token2, token1)

        // Quirk: a used refresh token is 400 with an empty body (no invalid_grant): -42007.
        let reuse = try await redeemFailure(refresh(token0, signIn.configuration))
        XCTAssertEqual(reuse.statusCode, 400)
        assertUnhandledResponse(MSALErrors.error(for: reuse), status: 400)
        XCTAssertNil(MSALErrors.error(for: reuse).userInfo[MSALOAuthErrorKey])

        // Reuse detection: the newest token of the chain is refused from now on too.
        let latest = try await redeemFailure(refresh(token2, signIn.configuration))
        XCTAssertEqual(latest.statusCode, 400)
        assertUnhandledResponse(MSALErrors.error(for: latest), status: 400)
    }

    // MARK: Device code

    func testDeviceCodeFlowWithPendingSlowDownApprovalAndTheLibraryPoller() async throws {
        let configuration = try await resolve(server.issuer)
        let authorization = try await deviceAuthorization(configuration)
        XCTAssertEqual(authorization.interval, 1)
        XCTAssertGreaterThan(authorization.expiresOn.timeIntervalSinceNow, 60)
        XCTAssertEqual(
            authorization.verificationURIComplete?.absoluteString,
            authorization.verificationURI.absoluteString + "?code=" + authorization.userCode)
        let request = TokenRequest.deviceCode(
            authorization.deviceCode, endpoint: configuration.tokenEndpoint, common: common())

        // Polled at once: pending; polled again within the interval: slow_down. Both RFC 8628
        // errors, as 400 JSON.
        let pending = try await redeemFailure(request)
        XCTAssertEqual(pending.statusCode, 400)
        XCTAssertEqual(MSALErrors.error(for: pending).userInfo[MSALOAuthErrorKey] as? String, "authorization_pending")
        let tooFast = try await redeemFailure(request)
        XCTAssertEqual(MSALErrors.error(for: tooFast).userInfo[MSALOAuthErrorKey] as? String, "slow_down")

        // The library's poller waits out the interval and gets the tokens once the user approves
        // on the verification page (through the REST API, while it polls).
        let browser = try GlewlwydBrowser(server: server)
        let poller = DeviceCodePoller(
            client: tokens, sleep: { seconds in try await Task.sleep(for: .milliseconds(Int(seconds * 1000) + 50)) },
            now: { Date() })
        let scopes = server.scopes
        async let approval: Void = browser.approveDevice(
            userCode: authorization.userCode, verificationURI: authorization.verificationURI, scopes: scopes)
        let response = try await poller.poll(authorization, makeRequest: { _ in request }, correlationId: UUID())
        try await approval
        XCTAssertNotNil(response.accessToken)
        XCTAssertNotNil(response.refreshToken)
        let idToken = try IDTokenClaims(raw: try XCTUnwrap(response.idToken))
        try idToken.validate(clientId: server.clientId, issuer: configuration.issuer, nonce: nil, now: Date())
        XCTAssertEqual(idToken.preferredUsername, server.user)
        XCTAssertGreaterThan(idToken.claims["auth_time"]?.doubleValue ?? 0, 0)

        // Quirk: a redeemed (or unknown) device code is 400 access_denied, which the poller reads
        // as the user declining (-50005).
        let replay = try await redeemFailure(request)
        XCTAssertEqual(replay.statusCode, 400)
        XCTAssertEqual(MSALErrors.error(for: replay).userInfo[MSALOAuthErrorKey] as? String, "access_denied")
        XCTAssertEqual(MSALErrors.error(for: replay).code, MSALError.userCanceled.rawValue)
        let unknown = TokenRequest.deviceCode(
            "unknown-device-code", endpoint: configuration.tokenEndpoint, common: common())
        let unknownFailure = try await redeemFailure(unknown)
        XCTAssertEqual(MSALErrors.error(for: unknownFailure).userInfo[MSALOAuthErrorKey] as? String, "access_denied")
    }

    // MARK: Expiry (short-lived issuer)

    func testCodesDeviceCodesAndAccessTokensExpireOnTheShortIssuer() async throws {
        let configuration = try await resolve(server.shortIssuer)
        let browser = try GlewlwydBrowser(server: server)
        // Issued together, then one move of the server's clock covers every lifetime.
        let redeemed = try await signIn(browser: browser, issuer: server.shortIssuer)
        let live = try await tokens.redeem(redeemRequest(redeemed), correlationId: UUID())
        let stale = try await signIn(browser: browser, issuer: server.shortIssuer)
        let authorization = try await deviceAuthorization(configuration)
        let issuedAt = Date()
        XCTAssertEqual(
            authorization.expiresOn.timeIntervalSince(issuedAt), server.shortDeviceCodeLifetime, accuracy: 2)

        let lifetime = max(server.shortCodeLifetime, server.shortDeviceCodeLifetime, server.shortAccessTokenLifetime)
        // Glewlwyd compares whole seconds: its clock moves past the lifetime with a margin (the
        // refresh token, 60 s, stays valid), and its own Date header shows the move.
        let offset = Int(lifetime.rounded(.up)) + 10
        try server.setClockOffset(seconds: offset)
        defer { try? server.setClockOffset(seconds: 0) }
        let moved = try await serverDate(server.shortIssuer)
        XCTAssertGreaterThanOrEqual(moved.timeIntervalSinceNow, TimeInterval(offset - 2))

        // An expired code: 403 invalid_code, as a wrong verifier.
        let code = try await redeemFailure(redeemRequest(stale))
        XCTAssertEqual(code.statusCode, 403)
        assertOAuthError(MSALErrors.error(for: code), "invalid_code", status: 403)

        // An expired device code: 400 expired_token, which the poller turns into MSAL's expiry
        // error (its clock is held before the local expiry, so it asks the server).
        let poller = DeviceCodePoller(client: tokens, sleep: { _ in }, now: { issuedAt })
        let request = TokenRequest.deviceCode(
            authorization.deviceCode, endpoint: configuration.tokenEndpoint, common: common())
        do {
            _ = try await poller.poll(authorization, makeRequest: { _ in request }, correlationId: UUID())
            XCTFail("an expired device code must not give tokens")
        } catch {
            let error = error as NSError
            XCTAssertEqual(error.userInfo[MSALInternalErrorCodeKey] as? Int, -42104)
            XCTAssertEqual(error.userInfo[MSALOAuthErrorKey] as? String, "expired_token")
        }

        // Quirk: an expired access token at userinfo is 401 with an empty body and no
        // WWW-Authenticate header.
        let userInfo = try await transport.send(
            HTTPRequest(
                url: server.shortIssuer.appendingPathComponent("userinfo"),
                headers: [("Authorization", "Bearer \(try XCTUnwrap(live.accessToken))")]))
        XCTAssertEqual(userInfo.statusCode, 401)
        XCTAssertTrue(userInfo.body.isEmpty)
        XCTAssertNil(userInfo.headers["WWW-Authenticate"])

        // The refresh token outlives the access token.
        let refreshed = try await tokens.redeem(
            refresh(try XCTUnwrap(live.refreshToken), configuration), correlationId: UUID())
        XCTAssertNotNil(refreshed.accessToken)

        // The clock goes back for the other tests.
        try server.setClockOffset(seconds: 0)
        let restored = try await serverDate(server.shortIssuer)
        XCTAssertEqual(restored.timeIntervalSinceNow, 0, accuracy: 2)
    }

    // MARK: Helpers

    private struct SignIn {
        let configuration: OpenIDConfiguration
        let pkce: PKCE
        let state: String
        let nonce: String
        let redirect: URL
        let code: String
    }

    private func resolve(_ issuer: URL) async throws -> OpenIDConfiguration {
        let authority = try Authority.oidc(issuer: issuer.absoluteString)
        return try await AuthorityResolver(transport: transport)
            .resolve(authority, knownAuthorities: [], correlationId: UUID()).configuration
    }

    private func common(_ scopes: [String]? = nil) -> TokenRequest.Common {
        TokenRequest.Common(
            clientId: server.clientId, scope: (scopes ?? server.scopes).joined(separator: " "),
            requestClientInfo: false, claims: nil, extraQueryParameters: nil)
    }

    private func authorizeURL(
        _ configuration: OpenIDConfiguration, pkce: PKCE?, state: String, nonce: String?,
        redirectURI: String? = nil, extra: [URLQueryItem] = []
    ) throws -> URL {
        var components = try XCTUnwrap(
            URLComponents(url: configuration.authorizationEndpoint, resolvingAgainstBaseURL: false))
        var items = [
            URLQueryItem(name: "response_type", value: "code"),
            URLQueryItem(name: "client_id", value: server.clientId),
            URLQueryItem(name: "redirect_uri", value: redirectURI ?? server.loopbackRedirectURI),
            URLQueryItem(name: "scope", value: server.scopes.joined(separator: " ")),
            URLQueryItem(name: "state", value: state),
        ]
        if let nonce { items.append(URLQueryItem(name: "nonce", value: nonce)) }
        if let pkce {
            items.append(URLQueryItem(name: "code_challenge", value: pkce.challenge))
            items.append(URLQueryItem(name: "code_challenge_method", value: PKCE.method))
        }
        components.queryItems = items + extra
        // URLComponents leaves '+' alone in a query; a form decoder reads it as a space.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return try XCTUnwrap(components.url)
    }

    /// An interactive sign-in through the headless browser, up to the authorization code.
    private func signIn(browser: GlewlwydBrowser, issuer: URL? = nil) async throws -> SignIn {
        let configuration = try await resolve(issuer ?? server.issuer)
        let pkce = try PKCE()
        let state = UUID().uuidString
        let nonce = UUID().uuidString
        let redirect = try await browser.authorize(
            url: authorizeURL(configuration, pkce: pkce, state: state, nonce: nonce),
            redirectPrefix: server.loopbackRedirectURI)
        let parameters = query(of: redirect)
        let code = try XCTUnwrap(parameters["code"], "no code in \(redirect)")
        return SignIn(
            configuration: configuration, pkce: pkce, state: state, nonce: nonce, redirect: redirect, code: code)
    }

    private func redeemRequest(_ signIn: SignIn) -> TokenRequest {
        .authorizationCode(
            signIn.code, codeVerifier: signIn.pkce.verifier, redirectURI: server.loopbackRedirectURI,
            endpoint: signIn.configuration.tokenEndpoint, common: common())
    }

    private func refresh(_ token: String, _ configuration: OpenIDConfiguration, scopes: [String]? = nil)
        -> TokenRequest
    {
        .refreshToken(token, redirectURI: nil, endpoint: configuration.tokenEndpoint, common: common(scopes))
    }

    private func deviceAuthorization(_ configuration: OpenIDConfiguration) async throws -> DeviceAuthorization {
        let endpoint = try XCTUnwrap(configuration.deviceAuthorizationEndpoint)
        let response = try await transport.send(
            .formPost(
                url: endpoint,
                parameters: [("client_id", server.clientId), ("scope", server.scopes.joined(separator: " "))]))
        XCTAssertEqual(response.statusCode, 200)
        return try DeviceAuthorization(body: response.body, now: Date())
    }

    /// The server's own time: the `Date` header of the issuer's discovery document (whole seconds).
    private func serverDate(_ issuer: URL) async throws -> Date {
        let url = try XCTUnwrap(URL(string: issuer.absoluteString + "/.well-known/openid-configuration"))
        let response = try await transport.send(HTTPRequest(url: url))
        XCTAssertEqual(response.statusCode, 200)
        return try XCTUnwrap(ThrottlingCache.httpDate(try XCTUnwrap(response.headers["Date"])))
    }

    /// The failure of a token request that must fail.
    private func redeemFailure(_ request: TokenRequest, file: StaticString = #filePath, line: UInt = #line)
        async throws -> TokenRequestFailure
    {
        let response: TokenResponse
        do {
            response = try await tokens.redeem(request, correlationId: UUID())
        } catch {
            return error
        }
        XCTFail("expected an error, got tokens (scope \(response.scope ?? "none"))", file: file, line: line)
        throw GlewlwydBrowser.Failure(description: "unexpected tokens")
    }

    /// -50000 with internal -42007 (unhandled response) and the HTTP status: what the token
    /// client makes of a status it does not read OAuth errors from, or a body without one.
    private func assertUnhandledResponse(
        _ error: NSError, status: Int, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(error.domain, MSALErrorDomain, file: file, line: line)
        XCTAssertEqual(error.code, MSALError.internal.rawValue, file: file, line: line)
        XCTAssertEqual(error.userInfo[MSALInternalErrorCodeKey] as? Int, -42007, file: file, line: line)
        XCTAssertEqual(error.userInfo[MSALHTTPResponseCodeKey] as? String, "\(status)", file: file, line: line)
    }

    /// -50000 with internal -42104 (an OAuth error MSAL has no code for), the server's `error` and
    /// the HTTP status.
    private func assertOAuthError(
        _ error: NSError, _ oauthError: String, status: Int, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(error.domain, MSALErrorDomain, file: file, line: line)
        XCTAssertEqual(error.code, MSALError.internal.rawValue, file: file, line: line)
        XCTAssertEqual(error.userInfo[MSALInternalErrorCodeKey] as? Int, -42104, file: file, line: line)
        XCTAssertEqual(error.userInfo[MSALOAuthErrorKey] as? String, oauthError, file: file, line: line)
        XCTAssertEqual(error.userInfo[MSALHTTPResponseCodeKey] as? String, "\(status)", file: file, line: line)
    }

    /// The issuer's signing keys by `kid`.
    private func jwks(_ configuration: OpenIDConfiguration) async throws -> [String: JSONWebKey] {
        let response = try await transport.send(HTTPRequest(url: try XCTUnwrap(configuration.jwksURI)))
        XCTAssertEqual(response.statusCode, 200)
        let keys = try XCTUnwrap(try JSONValue(parsing: response.body).objectValue?["keys"]?.arrayValue)
        var result: [String: JSONWebKey] = [:]
        for key in keys {
            let key = try XCTUnwrap(key.objectValue)
            let kid = try XCTUnwrap(key["kid"]?.stringValue)
            result[kid] = try JSONWebKey(
                kty: try XCTUnwrap(key["kty"]?.stringValue), n: key["n"]?.stringValue, e: key["e"]?.stringValue,
                kid: kid, alg: key["alg"]?.stringValue)
        }
        return result
    }

    /// The redirect's query parameters, decoded as a form: glewlwyd writes spaces as '+'
    /// (`error_description=id_token+mandatory`), which `URLComponents.queryItems` leaves as is.
    private func query(of url: URL) -> [String: String] {
        var result: [String: String] = [:]
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? ""
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            result[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return result
    }
}
