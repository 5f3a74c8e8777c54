import Foundation

/// A token endpoint request (RFC 6749 §4.1.3, §6; RFC 8628 §3.4): the endpoint, the form body in
/// order, and headers.
struct TokenRequest: Sendable {
    /// The token endpoint, with the caller's extra query parameters appended (as MSAL does).
    let endpoint: URL
    /// The form parameters, in the order sent.
    let parameters: [(name: String, value: String)]
    /// Extra headers (for example `X-AnchorMailbox`).
    let headers: [(name: String, value: String)]

    /// The `grant_type` of device code redemption.
    static let deviceCodeGrantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// Fields every grant shares: `client_id`, `scope`, `client_info=1` (when the authority
    /// uses client_info) and `claims`.
    struct Common: Sendable {
        var clientId: String
        var scope: String
        var requestClientInfo: Bool
        var claims: String?
        var extraQueryParameters: [String: String]?
        var headers: [(name: String, value: String)] = []
        /// The RFC 8707 resource indicator, sent as `resource`, or `nil`.
        var resource: String? = nil
    }

    /// Redeems an authorization code with its PKCE verifier.
    static func authorizationCode(
        _ code: String, codeVerifier: String, redirectURI: String, endpoint: URL, common: Common
    ) -> TokenRequest {
        make(
            endpoint, common,
            grant: [
                ("grant_type", "authorization_code"), ("code", code), ("code_verifier", codeVerifier),
                ("redirect_uri", redirectURI),
            ])
    }

    /// Redeems a refresh token.
    static func refreshToken(_ refreshToken: String, redirectURI: String?, endpoint: URL, common: Common)
        -> TokenRequest
    {
        var grant: [(name: String, value: String)] = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
        if let redirectURI { grant.append(("redirect_uri", redirectURI)) }
        return make(endpoint, common, grant: grant)
    }

    /// Polls for the tokens of a device code.
    static func deviceCode(_ deviceCode: String, endpoint: URL, common: Common) -> TokenRequest {
        make(endpoint, common, grant: [("grant_type", deviceCodeGrantType), ("device_code", deviceCode)])
    }

    private static func make(_ endpoint: URL, _ common: Common, grant: [(name: String, value: String)])
        -> TokenRequest
    {
        var parameters: [(name: String, value: String)] = [("client_id", common.clientId)]
        parameters += grant
        parameters.append(("scope", common.scope))
        if common.requestClientInfo { parameters.append(("client_info", "1")) }
        if let claims = common.claims, !claims.isEmpty { parameters.append(("claims", claims)) }
        if let resource = common.resource, !resource.isEmpty { parameters.append(("resource", resource)) }
        return TokenRequest(
            endpoint: appendingQuery(common.extraQueryParameters, to: endpoint),
            parameters: parameters,
            headers: common.headers)
    }

    /// `url` with `extra` added to its query, sorted by name so requests are reproducible.
    static func appendingQuery(_ extra: [String: String]?, to url: URL) -> URL {
        guard let extra, !extra.isEmpty,
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return url }
        var items = components.queryItems ?? []
        for key in extra.keys.sorted() { items.append(URLQueryItem(name: key, value: extra[key])) }
        components.queryItems = items
        return components.url ?? url
    }

    /// The value of form parameter `name`.
    func value(of name: String) -> String? {
        parameters.first { $0.name == name }?.value
    }
}
