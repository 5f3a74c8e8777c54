import MSALNative

/// Which accounts ``MSALPublicClientApplication/accounts(for:)`` returns.
public final class MSALAccountEnumerationParameters: @unchecked Sendable {
    // @unchecked: stored properties are behind a lock.
    private let values:
        Locked<(identifier: String?, tenantProfileIdentifier: String?, username: String?, signedIn: Bool)>

    /// Accounts with this identifier (home account id).
    public init(identifier: String) {
        values = Locked((identifier, nil, nil, true))
    }

    /// Accounts with this identifier and user name (either may be `nil`).
    public init(identifier: String?, username: String?) {
        values = Locked((identifier, nil, username, true))
    }

    /// Accounts with a tenant profile of this local account id (object id in a tenant).
    public init(tenantProfileIdentifier: String) {
        values = Locked((nil, tenantProfileIdentifier, nil, true))
    }

    /// The home account id to match, case-insensitively.
    public var identifier: String? { values.withLock { $0.identifier } }
    /// The local account id of a tenant profile to match.
    public var tenantProfileIdentifier: String? { values.withLock { $0.tenantProfileIdentifier } }
    /// The user name to match, case-insensitively.
    public var username: String? { values.withLock { $0.username } }

    /// `true`: only accounts that can get tokens silently for this app (a refresh token for it or
    /// its family, or signed in through it). `false`: every cached account of any app, except
    /// those signed out of this app (``MSALPublicClientApplication/remove(_:)``), which MSAL never
    /// lists. Default `true`.
    public var returnOnlySignedInAccounts: Bool {
        get { values.withLock { $0.signedIn } }
        set { values.withLock { $0.signedIn = newValue } }
    }
}
