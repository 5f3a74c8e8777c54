/// An account's presence in one tenant: its object id there and that tenant's id_token claims.
/// A guest user has one profile per tenant it signed in to.
public final class MSALTenantProfile: Sendable {
    /// The user's object id in this tenant (the local account id).
    public let identifier: String?
    /// The cloud host the profile's tokens are stored under.
    public let environment: String?
    /// The tenant id.
    public let tenantId: String?
    /// Whether this is the user's home tenant.
    public let isHomeTenantProfile: Bool
    /// The raw id token the claims come from; decoded only when ``claims`` is read, so building
    /// results and account lists stays cheap.
    private let idToken: String?

    /// The id_token claims issued by this tenant (JSON values as Foundation objects).
    public var claims: [String: Any]? {
        idToken.flatMap { try? IDTokenClaims(raw: $0).claims.mapValues(\.foundationObject) }
    }

    init(identifier: String?, environment: String?, tenantId: String?, isHomeTenantProfile: Bool, idToken: String?) {
        self.identifier = identifier
        self.environment = environment
        self.tenantId = tenantId
        self.isHomeTenantProfile = isHomeTenantProfile
        self.idToken = idToken
    }
}
