/// What the sign-in page asks of the user, sent as the `prompt` parameter of the authorize
/// request. Raw values and names match MSAL for iOS/macOS.
///
/// Leave it at ``default`` (``promptIfNecessary``) unless the app has a reason: the identity
/// provider then shows only what it needs (often nothing, when the browser already has a session).
public enum MSALPromptType: UInt, Sendable, CaseIterable {
    /// Let the user pick one of the accounts signed in to the browser, or add another
    /// (`prompt=select_account`).
    case selectAccount = 0
    /// Ask for credentials even when the browser has a session (`prompt=login`).
    case login = 1
    /// Ask for consent to the requested scopes again, even when already granted (`prompt=consent`).
    case consent = 2
    /// Show the sign-up page so the user can create an account (`prompt=create`); the tenant must
    /// allow self-service sign-up.
    case create = 3
    /// Show only what the identity provider needs; no `prompt` parameter is sent.
    case promptIfNecessary = 4

    /// The default: ``promptIfNecessary``.
    public static let `default` = MSALPromptType.promptIfNecessary

    /// The `prompt` value sent to the authorize endpoint, or `nil` when none is sent.
    var wireValue: String? {
        switch self {
        case .selectAccount: "select_account"
        case .login: "login"
        case .consent: "consent"
        case .create: "create"
        case .promptIfNecessary: nil
        }
    }
}
