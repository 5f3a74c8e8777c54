public import Foundation

/// The outcome of a successful token request.
public final class MSALResult: Sendable {
    /// The access token, to send as `Authorization: Bearer <accessToken>` (see
    /// ``authorizationHeader``). Empty when the server returned none.
    public let accessToken: String
    /// When the access token expires.
    public let expiresOn: Date?
    /// Whether the token is past its normal lifetime and was returned because the service is
    /// unavailable and ``MSALPublicClientApplicationConfig/extendedLifetimeEnabled`` is on.
    public let extendedLifeTimeToken: Bool
    /// The raw id token (a JWT), when one is cached for the account.
    public let idToken: String?
    /// The scopes the access token was granted, as the server returned them.
    public let scopes: [String]
    /// The account's profile in the tenant that issued the token.
    public let tenantProfile: MSALTenantProfile
    /// The signed-in account.
    public let account: MSALAccount
    /// The authority that issued the token.
    public let authority: MSALAuthority
    /// The correlation id of the request (sent as `client-request-id`).
    public let correlationId: UUID
    /// The authentication scheme, `Bearer`.
    public let authenticationScheme: String

    /// `Bearer <accessToken>`, ready for an HTTP `Authorization` header ("" without an access token).
    public var authorizationHeader: String {
        accessToken.isEmpty ? "" : "\(authenticationScheme) \(accessToken)"
    }

    init(
        accessToken: String, expiresOn: Date?, extendedLifeTimeToken: Bool, idToken: String?, scopes: [String],
        tenantProfile: MSALTenantProfile, account: MSALAccount, authority: MSALAuthority, correlationId: UUID,
        authenticationScheme: String = "Bearer"
    ) {
        self.accessToken = accessToken
        self.expiresOn = expiresOn
        self.extendedLifeTimeToken = extendedLifeTimeToken
        self.idToken = idToken
        self.scopes = scopes
        self.tenantProfile = tenantProfile
        self.account = account
        self.authority = authority
        self.correlationId = correlationId
        self.authenticationScheme = authenticationScheme
    }
}
