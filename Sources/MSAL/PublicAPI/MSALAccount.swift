/// A user signed in through this library (or another app sharing its cache).
///
/// Obtain accounts from ``MSALPublicClientApplication/allAccounts()`` and friends, or from an
/// ``MSALResult``; pass one to ``MSALSilentTokenParameters`` to get tokens for it.
public final class MSALAccount: Sendable, Hashable, CustomStringConvertible {
    /// The sign-in name (`preferred_username`), e.g. `alice@contoso.com`.
    public let username: String?
    /// The account's stable identifier (the home account id, `<objectId>.<tenantId>`): opaque to
    /// callers; store it to find the account again.
    public let identifier: String?
    /// The cloud host the account's tokens are stored under (e.g. `login.windows.net`).
    public let environment: String?
    /// The home account id with its parts.
    public let homeAccountId: MSALAccountId?
    /// The account in each tenant it signed in to.
    public let tenantProfiles: [MSALTenantProfile]?
    /// Whether the account came from an external single-sign-on source: `true` for an account
    /// only the Linux broker listed (``MSALPublicClientApplication/accountsFromDevice(for:)``),
    /// `false` for the cache's.
    public let isSSOAccount: Bool
    /// The home tenant's raw id token, decoded only when ``accountClaims`` is read.
    private let homeIdToken: String?

    /// The id_token claims of the home tenant only (nil until the account signed in to its home
    /// tenant through this app's cache).
    public var accountClaims: [String: Any]? {
        homeIdToken.flatMap { try? IDTokenClaims(raw: $0).claims.mapValues(\.foundationObject) }
    }

    init(
        username: String?, homeAccountId: String?, environment: String?, tenantProfiles: [MSALTenantProfile]?,
        homeIdToken: String?, isSSOAccount: Bool = false
    ) {
        self.username = username
        self.identifier = homeAccountId
        self.environment = environment
        self.homeAccountId = homeAccountId.map(MSALAccountId.init(homeAccountId:))
        self.tenantProfiles = tenantProfiles
        self.isSSOAccount = isSSOAccount
        self.homeIdToken = homeIdToken
    }

    /// Equal when both have identifiers and they are equal (case-sensitively); otherwise when the
    /// user names are equal ignoring case. The environment is not compared (as MSAL).
    public static func == (lhs: MSALAccount, rhs: MSALAccount) -> Bool {
        if let left = lhs.identifier, let right = rhs.identifier {
            return left == right
        }
        return lhs.username?.lowercased() == rhs.username?.lowercased()
    }

    /// Constant, as MSAL's: equality may compare user names when identifiers are missing.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(0)
    }

    /// No personal data: the description is safe to log.
    public var description: String { "MSALAccount(environment: \(environment ?? "nil"))" }
}
