import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// The protected-resource round trip with a real authorization server other than Entra ID:
/// an MCP-style resource on loopback publishes RFC 9728 metadata naming glewlwyd as its
/// authorization server and accepts only glewlwyd access tokens issued for it (RFC 8707 `aud`);
/// the app calls it, reads the challenge, fetches the metadata, gets a token with `resource`
/// from glewlwyd and calls again.
///
/// glewlwyd 2.7.5 implements RFC 8707 (its OIDC plugin's "resource indicators": the `resource`
/// parameter of `/auth` and `/token` becomes the access token's `aud`) when the plugin allows
/// it and lists the resource for a scope. The test turns that on for this resource through
/// glewlwyd's admin API and restores the plugin's settings at the end. Like every glewlwyd test
/// it must not run beside another one (the server is shared).
final class GlewlwydProtectedResourceTests: XCTestCase {
    struct Webview: MSALWebviewProvider {
        let browser: GlewlwydBrowser

        func authorize(startURL: URL, redirectURIPrefix: String) async throws -> URL {
            try await browser.authorize(url: startURL, redirectPrefix: redirectURIPrefix)
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// glewlwyd's admin REST API with the administrator's session (the start script's password).
    struct Admin {
        let server: GlewlwydServer
        let client: CurlClient
        let cookie: String

        init(server: GlewlwydServer) async throws {
            self.server = server
            client = try CurlClient()
            let body = try JSONSerialization.data(
                withJSONObject: ["username": server.adminUser, "password": server.adminPassword])
            let response = try await client.perform(
                CurlRequest(
                    url: server.baseURL.absoluteString + "/api/auth/", method: "POST",
                    headers: [("Content-Type", "application/json")], body: [UInt8](body), caFile: server.caFile,
                    connectTimeout: 5, timeout: 15))
            let setCookie = response.headers.first { $0.name.lowercased() == "set-cookie" }?.value ?? ""
            guard response.status == 200, let pair = setCookie.split(separator: ";").first else {
                throw Failure(description: "admin sign-in answered HTTP \(response.status)")
            }
            cookie = String(pair)
        }

        func send(_ method: String, _ path: String, json: Data? = nil) async throws -> CurlResponse {
            var headers = [(name: "Cookie", value: cookie)]
            if json != nil { headers.append(("Content-Type", "application/json")) }
            let response = try await client.perform(
                CurlRequest(
                    url: server.baseURL.absoluteString + "/api" + path, method: method, headers: headers,
                    body: json.map { [UInt8]($0) }, caFile: server.caFile, connectTimeout: 5, timeout: 15))
            guard (200...299).contains(response.status) else {
                throw Failure(description: "\(method) /api\(path) answered HTTP \(response.status)")
            }
            return response
        }
    }

    /// Checks glewlwyd access tokens: RS256 with a key of its JWKS, its issuer, `aud` the
    /// resource, not expired, `api.read` in `scope`.
    struct Validator: Sendable {
        let keys: [String: JSONWebKey]
        let issuer: String
        let resource: String

        func accepts(_ authorization: String?) -> Bool {
            guard let authorization, authorization.lowercased().hasPrefix("bearer ") else { return false }
            let parts = authorization.dropFirst(7).split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3, let header = Self.object(parts[0]), let claims = Self.object(parts[1]),
                let signature = Base64URL.decode(String(parts[2])), let kid = header["kid"] as? String,
                let key = keys[kid],
                (try? key.verify(
                    signature: signature, message: Array("\(parts[0]).\(parts[1])".utf8), algorithm: "RS256")) == true
            else { return false }
            let audiences = (claims["aud"] as? [String]) ?? [(claims["aud"] as? String) ?? ""]
            let scopes = (claims["scope"] as? String ?? "").split(separator: " ")
            return claims["iss"] as? String == issuer && audiences.contains(resource)
                && ((claims["exp"] as? NSNumber)?.doubleValue ?? 0) > Date().timeIntervalSince1970
                && scopes.contains("api.read")
        }

        static func object(_ part: Substring) -> [String: Any]? {
            guard let bytes = Base64URL.decode(String(part)) else { return nil }
            return try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
        }
    }

    func testCallChallengeMetadataTokenWithResourceCallAgain() async throws {
        let server = try await GlewlwydServer.shared()
        let issuer = server.issuer.absoluteString

        // glewlwyd's signing keys, for the resource to check tokens with.
        let jwksClient = try CurlClient()
        let jwks = try await jwksClient.perform(
            CurlRequest(url: issuer + "/jwks", caFile: server.caFile, connectTimeout: 5, timeout: 15))
        let keySet =
            try XCTUnwrap(
                try JSONSerialization.jsonObject(with: Data(jwks.body)) as? [String: Any])["keys"] as? [[String: Any]]
        var keys: [String: JSONWebKey] = [:]
        for key in keySet ?? [] where key["kty"] as? String == "RSA" {
            let kid = key["kid"] as? String ?? ""
            keys[kid] = try JSONWebKey(kty: "RSA", n: key["n"] as? String, e: key["e"] as? String, kid: kid)
        }
        XCTAssertFalse(keys.isEmpty, "glewlwyd publishes its RSA keys")

        // The MCP-style resource, its certificate from its own CA.
        let authority = try TestCertificateAuthority()
        let state = Locked<(validator: Validator?, calls: [String?])>((nil, []))
        let resourceServer = try LoopbackHTTPSServer(certificateAuthority: authority) { request in
            let resource = "https://127.0.0.1:\(request.header("Host")?.split(separator: ":").last ?? "")/mcp"
            if request.path == "/.well-known/oauth-protected-resource/mcp" {
                return .respond(
                    .json([
                        "resource": resource, "authorization_servers": [issuer], "scopes_supported": ["api.read"],
                    ]))
            }
            let authorization = request.header("Authorization")
            let accepted = state.withLock { state in
                state.calls.append(authorization)
                return state.validator?.accepts(authorization) == true
            }
            if accepted { return .respond(.json(["result": "hello from the MCP resource"])) }
            let metadata =
                "https://127.0.0.1:\(request.header("Host")?.split(separator: ":").last ?? "")"
                + "/.well-known/oauth-protected-resource/mcp"
            return .respond(
                .json(
                    status: 401, ["error": "invalid_token"],
                    headers: [
                        "WWW-Authenticate": "Bearer resource_metadata=\"\(metadata)\", error=\"invalid_token\""
                    ]))
        }
        defer { resourceServer.stop() }
        let resource = resourceServer.baseURL.absoluteString + "/mcp"
        state.withLock { $0.validator = Validator(keys: keys, issuer: issuer, resource: resource) }

        // glewlwyd accepts `resource` for this resource on the api.read scope, until the end.
        let admin = try await Admin(server: server)
        let original = try await admin.send("GET", "/mod/plugin/oidc")
        var plugin = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(original.body)) as? [String: Any])
        var parameters = try XCTUnwrap(plugin["parameters"] as? [String: Any])
        parameters["resource-allowed"] = true
        parameters["resource-scope"] = ["api.read": [resource]]
        parameters["resource-change-allowed"] = true
        parameters["resource-client-property"] = ""
        parameters["resource-scope-and-client-property"] = false
        plugin["parameters"] = parameters
        _ = try await admin.send("PUT", "/mod/plugin/oidc", json: try JSONSerialization.data(withJSONObject: plugin))
        // The plugin instance reads its settings when it is (re)loaded.
        _ = try await admin.send("PUT", "/mod/plugin/oidc/reset")
        do {
            try await roundTrip(
                server: server, authority: authority, resource: resource, calls: { state.withLock { $0.calls.count } })
        } catch {
            _ = try? await admin.send("PUT", "/mod/plugin/oidc", json: Data(original.body))
            _ = try? await admin.send("PUT", "/mod/plugin/oidc/reset")
            throw error
        }
        _ = try await admin.send("PUT", "/mod/plugin/oidc", json: Data(original.body))
        _ = try await admin.send("PUT", "/mod/plugin/oidc/reset")
    }

    private func audiences(_ token: String) -> [String] {
        let parts = token.split(separator: ".")
        guard parts.count == 3, let claims = Validator.object(parts[1]) else { return [] }
        return (claims["aud"] as? [String]) ?? [(claims["aud"] as? String) ?? ""]
    }

    private func roundTrip(
        server: GlewlwydServer, authority: TestCertificateAuthority, resource: String, calls: () -> Int
    ) async throws {
        let issuer = server.issuer.absoluteString
        // The app trusts glewlwyd's CA and the resource's.
        let bundle = FileManager.default.temporaryDirectory.appendingPathComponent("msal-rest-ca-\(UUID()).pem")
        defer { try? FileManager.default.removeItem(at: bundle) }
        let pem =
            try Data(contentsOf: URL(fileURLWithPath: server.caFile))
            + Data(contentsOf: URL(fileURLWithPath: authority.certificateFile))
        try pem.write(to: bundle)
        let config = MSALPublicClientApplicationConfig(
            clientId: server.clientId, redirectUri: "http://localhost:8400/callback",
            authority: try MSALOIDCAuthority(issuer: server.issuer))
        config.certificateAuthorityFile = bundle.path
        config.cacheConfig.inMemoryOnly = true
        let application = try MSALPublicClientApplication(configuration: config)
        let webview = MSALWebviewParameters()
        webview.customWebview = Webview(browser: try GlewlwydBrowser(server: server))
        let signedIn = try await application.acquireToken(
            with: MSALInteractiveTokenParameters(scopes: ["api.read"], webviewParameters: webview))

        // 1. A token without `resource` is refused: its aud is the scope list, not this resource.
        let request = MSALProtectedResourceRequest(url: try XCTUnwrap(URL(string: resource)), httpMethod: "POST")
        let refused = try await application.callProtectedResource(
            request, authorizationHeader: signedIn.authorizationHeader)
        XCTAssertEqual(refused.statusCode, 401)
        let challenge = try XCTUnwrap(refused.challenge)
        XCTAssertEqual(challenge.resourceMetadataURL?.path, "/.well-known/oauth-protected-resource/mcp")

        // 2. The metadata names glewlwyd: an OIDC authority and the RFC 8707 resource indicator.
        let metadata = try await application.protectedResourceMetadata(
            forResource: try XCTUnwrap(URL(string: resource)), challenge: challenge)
        XCTAssertFalse(metadata.isMicrosoftEntra)
        XCTAssertEqual(metadata.resourceIndicator, resource)
        XCTAssertEqual(metadata.scopes, ["api.read"])
        XCTAssertEqual(metadata.authority.url.absoluteString, issuer)

        // 3. Silently first: the refresh token's grant had no resource, and glewlwyd 2.7.5 refuses
        // a refresh for a resource its grant did not name (invalid_target, even with
        // resource-change-allowed), as RFC 8707 §2.2 permits; the library says interaction is
        // needed (-50002).
        let silent = MSALSilentTokenParameters(scopes: metadata.scopes, account: signedIn.account)
        silent.authority = metadata.authority
        silent.resourceIndicator = metadata.resourceIndicator
        do {
            _ = try await application.acquireTokenSilent(with: silent)
            XCTFail("glewlwyd issued a token for a resource outside the refresh token's grant")
        } catch let error as NSError {
            XCTAssertEqual(error.code, MSALError.interactionRequired.rawValue, "\(error)")
            XCTAssertEqual(error.userInfo[MSALOAuthErrorKey] as? String, "invalid_target")
        }

        // Interactively: `resource` on the authorize and token requests; aud = resource.
        let interactive = MSALInteractiveTokenParameters(scopes: metadata.scopes, webviewParameters: webview)
        interactive.authority = metadata.authority
        interactive.resourceIndicator = metadata.resourceIndicator
        let token = try await application.acquireToken(with: interactive)
        XCTAssertEqual(audiences(token.accessToken), [resource], "glewlwyd honoured RFC 8707 resource")

        // 4. The call succeeds.
        let answer = try await application.callProtectedResource(
            request, authorizationHeader: token.authorizationHeader)
        XCTAssertEqual(answer.statusCode, 200, String(decoding: answer.body, as: UTF8.self))
        XCTAssertEqual(calls(), 2)

        // 5. From now on silently: the token cached for the resource, then (forced) a refresh:
        // the new grant is for the resource, so its refresh token is too.
        let cached = try await application.acquireTokenSilent(with: silent)
        XCTAssertEqual(cached.accessToken, token.accessToken, "the resource's token is cached for it")
        silent.forceRefresh = true
        let refreshed = try await application.acquireTokenSilent(with: silent)
        XCTAssertNotEqual(refreshed.accessToken, token.accessToken)
        XCTAssertEqual(audiences(refreshed.accessToken), [resource])
        let again = try await application.callProtectedResource(
            request, authorizationHeader: refreshed.authorizationHeader)
        XCTAssertEqual(again.statusCode, 200)
    }
}
