/// Everything the cache stores from one successful token response, already validated and
/// resolved by the flow: the single input of ``TokenStore/save(_:)``.
package struct TokenResponseRecord: Sendable {
    var clientId: String
    /// The cache environment (instance discovery's `preferred_cache`), a host without port 443.
    var environment: String
    /// The tenant id (the id_token's `tid` for AAD; the authority's tenant otherwise).
    var realm: String
    /// `<uid>.<utid>` from client_info, or the id_token's `sub` without one.
    var homeAccountId: String
    /// The id_token's `oid`, else `sub`.
    var localAccountId: String
    var username: String
    var name: String?
    var givenName: String?
    var familyName: String?
    var middleName: String?
    /// `MSSTS`, `ADFS`, ...
    var authorityType: String = "MSSTS"
    /// The raw base64url client_info, when the server sent one.
    var clientInfo: String?
    /// The account's `account_source` (`broker`, ...), when known.
    var accountSource: String?

    /// The access token; `nil` when the response had none.
    package var accessToken: String?
    /// The granted scopes in the server's case (for a `/.default` request, including it).
    package var scopes: [String] = []
    var tokenType: String? = "Bearer"
    /// Epoch seconds.
    package var expiresOn: Int64 = 0
    var extendedExpiresOn: Int64?
    var refreshOn: Int64?
    package var cachedAt: Int64 = 0

    /// The raw id_token, when the response had one.
    package var idToken: String?
    /// The refresh token, when the response had one.
    package var refreshToken: String?
    /// When the refresh token stops being redeemable (epoch seconds), when the server said.
    var refreshTokenExpiresOn: Int64?
    /// The response's `foci` (`"1"` for the Microsoft family); `nil` when absent.
    var foci: String?
    /// The RFC 8707 resource indicator of the request: the access token is kept for it only.
    var resource: String?

    package init(
        clientId: String, environment: String, realm: String, homeAccountId: String,
        localAccountId: String, username: String
    ) {
        self.clientId = clientId
        self.environment = environment
        self.realm = realm
        self.homeAccountId = homeAccountId
        self.localAccountId = localAccountId
        self.username = username
    }
}
