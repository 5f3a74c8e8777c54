public import Dispatch
public import Foundation
import MSALNative

/// Parameters shared by every token request. Use ``MSALSilentTokenParameters`` or
/// ``MSALInteractiveTokenParameters``.
///
/// The library reads the parameters when the request starts; changing them afterwards has no
/// effect on a request already made.
public class MSALTokenParameters: @unchecked Sendable {
    // @unchecked: every stored property is behind `shared`'s lock; subclasses do the same.
    struct Values: Sendable {
        var scopes: [String]
        var account: MSALAccount?
        var authority: MSALAuthority?
        var claimsRequest: MSALClaimsRequest?
        var correlationId: UUID?
        var extraQueryParameters: [String: String]?
        var completionBlockQueue: DispatchQueue?
        var resourceIndicator: String?
    }

    let shared: Locked<Values>

    /// Parameters for `scopes`: the permissions to request, e.g. `["User.Read"]` or
    /// `["https://graph.microsoft.com/.default"]`. Do not pass `openid`, `profile` or
    /// `offline_access`: they are always requested.
    public init(scopes: [String]) {
        shared = Locked(Values(scopes: scopes))
    }

    /// The scopes to request.
    public var scopes: [String] {
        get { shared.withLock { $0.scopes } }
        set { shared.withLock { $0.scopes = newValue } }
    }

    /// The account to get a token for (required for silent requests).
    public var account: MSALAccount? {
        get { shared.withLock { $0.account } }
        set { shared.withLock { $0.account = newValue } }
    }

    /// The authority for this request, e.g. another tenant or a B2C policy; `nil` uses the
    /// application's configured authority.
    public var authority: MSALAuthority? {
        get { shared.withLock { $0.authority } }
        set { shared.withLock { $0.authority = newValue } }
    }

    /// Claims to request, such as a claims challenge returned by a resource. In a silent request
    /// it skips the cached access token.
    public var claimsRequest: MSALClaimsRequest? {
        get { shared.withLock { $0.claimsRequest } }
        set { shared.withLock { $0.claimsRequest = newValue } }
    }

    /// The correlation id to send (`client-request-id`) and log; a new one is made when `nil`.
    public var correlationId: UUID? {
        get { shared.withLock { $0.correlationId } }
        set { shared.withLock { $0.correlationId = newValue } }
    }

    /// Extra parameters for the authorize request and the token endpoint's URL query, sent as
    /// given (do not URL-encode them yourself).
    public var extraQueryParameters: [String: String]? {
        get { shared.withLock { $0.extraQueryParameters } }
        set { shared.withLock { $0.extraQueryParameters = newValue } }
    }

    /// An RFC 8707 resource indicator, sent as `resource` on the authorization (or device
    /// authorization) and token requests of a silent, interactive or device code call: the API the
    /// token is for, such as
    /// ``MSALProtectedResourceMetadata/resourceIndicator``. Only for authorization servers other
    /// than Microsoft Entra ID, Azure AD B2C and CIAM, which name the resource by its scope
    /// (`<resource>/.default`) and refuse it (the call then fails with -50000 and -42000). A
    /// silent call with one always redeems the refresh token: the cache does not tell tokens for
    /// different resources with the same scopes apart. Ours; `nil` by default.
    public var resourceIndicator: String? {
        get { shared.withLock { $0.resourceIndicator } }
        set { shared.withLock { $0.resourceIndicator = newValue } }
    }

    /// The queue completion blocks run on; `nil` runs them on whatever thread produced the result
    /// (silent) or the main queue (interactive), as MSAL does.
    public var completionBlockQueue: DispatchQueue? {
        get { shared.withLock { $0.completionBlockQueue } }
        set { shared.withLock { $0.completionBlockQueue = newValue } }
    }
}

/// Parameters of ``MSALPublicClientApplication/acquireTokenSilent(with:completionBlock:)``.
public final class MSALSilentTokenParameters: MSALTokenParameters, @unchecked Sendable {
    // @unchecked: the subclass's own properties are behind `silent`'s lock.
    private let silent = Locked((forceRefresh: false, loginHint: String?.none))

    /// Parameters to get a token for `scopes` for `account` without showing anything.
    public init(scopes: [String], account: MSALAccount) {
        super.init(scopes: scopes)
        self.account = account
    }

    /// Parameters to get a token for `scopes` for the cached account whose user name is
    /// `loginHint` (compared case-insensitively); without a match the call fails with -50002.
    /// Ours; MSAL for iOS requires an account.
    public init(scopes: [String], loginHint: String) {
        super.init(scopes: scopes)
        self.loginHint = loginHint
    }

    /// Skips the cached access token and redeems the refresh token. Default `false`.
    public var forceRefresh: Bool {
        get { silent.withLock { $0.forceRefresh } }
        set { silent.withLock { $0.forceRefresh = newValue } }
    }

    /// When no ``MSALTokenParameters/account`` is given, selects the cached account with this
    /// user name (case-insensitive).
    public var loginHint: String? {
        get { silent.withLock { $0.loginHint } }
        set { silent.withLock { $0.loginHint = newValue } }
    }
}
