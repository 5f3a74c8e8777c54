import MSALNative

/// Parameters of ``MSALPublicClientApplication/signout(with:signoutParameters:)``.
public final class MSALSignoutParameters: @unchecked Sendable {
    // @unchecked: the values are behind a lock.
    private struct Values {
        var signoutFromBrowser = false
        var wipeAccount = false
        var wipeCacheForAllAccounts = false
        var extraQueryParameters: [String: String]?
    }

    private let values = Locked(Values())

    /// The browser (or custom web view) used to end the browser session.
    public let webviewParameters: MSALWebviewParameters

    /// Sign-out parameters that use `webviewParameters` when signing out of the browser.
    public init(webviewParameters: MSALWebviewParameters) {
        self.webviewParameters = webviewParameters
    }

    /// Sign-out parameters with the default web view (the system browser).
    public convenience init() {
        self.init(webviewParameters: MSALWebviewParameters())
    }

    /// Also end the identity provider's browser session (its `end_session_endpoint`), so the next
    /// sign-in asks for credentials. Default `false`.
    public var signoutFromBrowser: Bool {
        get { values.withLock { $0.signoutFromBrowser } }
        set { values.withLock { $0.signoutFromBrowser = newValue } }
    }

    /// Delete the account and its tokens for every app sharing the cache, not only this one.
    /// Default `false`.
    public var wipeAccount: Bool {
        get { values.withLock { $0.wipeAccount } }
        set { values.withLock { $0.wipeAccount = newValue } }
    }

    /// Delete every account and token in the cache. Default `false`.
    public var wipeCacheForAllAccounts: Bool {
        get { values.withLock { $0.wipeCacheForAllAccounts } }
        set { values.withLock { $0.wipeCacheForAllAccounts = newValue } }
    }

    /// Extra parameters for the end-session request.
    public var extraQueryParameters: [String: String]? {
        get { values.withLock { $0.extraQueryParameters } }
        set { values.withLock { $0.extraQueryParameters = newValue } }
    }

    var snapshot: (browser: Bool, wipeAccount: Bool, wipeAll: Bool, extra: [String: String]?) {
        values.withLock { ($0.signoutFromBrowser, $0.wipeAccount, $0.wipeCacheForAllAccounts, $0.extraQueryParameters) }
    }
}
