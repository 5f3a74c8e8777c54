import MSALNative

/// Parameters of ``MSALPublicClientApplication/acquireToken(with:)``: a sign-in in the browser
/// (or your custom web view).
public final class MSALInteractiveTokenParameters: MSALTokenParameters, @unchecked Sendable {
    // @unchecked: the subclass's own values are behind `interactive`'s lock.
    private struct Values {
        var promptType: MSALPromptType = .default
        var loginHint: String?
        var domainHint: String?
        var extraScopesToConsent: [String]?
    }

    private let interactive = Locked(Values())

    /// How the sign-in looks: the browser and the loopback redirect, or your custom web view.
    public let webviewParameters: MSALWebviewParameters

    /// Parameters to sign in interactively for `scopes`.
    public init(scopes: [String], webviewParameters: MSALWebviewParameters) {
        self.webviewParameters = webviewParameters
        super.init(scopes: scopes)
    }

    /// Parameters to sign in in the system browser for `scopes` (a Linux convenience).
    public override convenience init(scopes: [String]) {
        self.init(scopes: scopes, webviewParameters: MSALWebviewParameters())
    }

    /// Whether to force a login, an account picker or a consent page. Default
    /// ``MSALPromptType/default`` (only when needed).
    public var promptType: MSALPromptType {
        get { interactive.withLock { $0.promptType } }
        set { interactive.withLock { $0.promptType = newValue } }
    }

    /// The user name to pre-fill (`login_hint`); the account's user name is used when an account
    /// is given.
    public var loginHint: String? {
        get { interactive.withLock { $0.loginHint } }
        set { interactive.withLock { $0.loginHint = newValue } }
    }

    /// A hint of the user's domain or identity provider (`domain_hint`), e.g. `contoso.com`.
    public var domainHint: String? {
        get { interactive.withLock { $0.domainHint } }
        set { interactive.withLock { $0.domainHint = newValue } }
    }

    /// More scopes the user consents to now (for other resources), without getting a token for
    /// them; get those tokens silently later.
    public var extraScopesToConsent: [String]? {
        get { interactive.withLock { $0.extraScopesToConsent } }
        set { interactive.withLock { $0.extraScopesToConsent = newValue } }
    }

    var interactiveValues: (prompt: MSALPromptType, loginHint: String?, domainHint: String?, extra: [String]?) {
        interactive.withLock { ($0.promptType, $0.loginHint, $0.domainHint, $0.extraScopesToConsent) }
    }
}
