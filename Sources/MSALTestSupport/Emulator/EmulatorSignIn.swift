/// What the authorize endpoint knows when it decides who signs in: handed to
/// ``EntraEmulator/signInDecision``.
public struct EmulatorSignInRequest: Sendable {
    /// `client_id`.
    public let clientId: String
    /// The tenant path segment (`common`, a GUID, a domain, `adfs`).
    public let tenant: String
    /// The B2C policy, for B2C requests.
    public let policy: String?
    /// The requested scopes (`scope` split on spaces).
    public let scopes: [String]
    /// `login_hint`.
    public let loginHint: String?
    /// `domain_hint`.
    public let domainHint: String?
    /// `prompt` (`none`, `login`, `select_account`, `consent`, `create`).
    public let prompt: String?
    /// `claims`.
    public let claims: String?
    /// The user of the browser session, if someone signed in before and did not sign out.
    public let sessionUsername: String?
    /// Every query parameter, decoded.
    public let parameters: [String: String]
}

/// The outcome of a scripted sign-in.
public enum EmulatorSignInDecision: Sendable, Hashable {
    /// Use the emulator's rules: `prompt=none` needs a session; otherwise `login_hint`, then the
    /// session (unless `prompt=login`), then ``EntraEmulator/Configuration/defaultUsername``.
    case useDefaultRules
    /// This user signs in and consents to everything except `declinedScopes`.
    case signIn(username: String, declinedScopes: [String] = [])
    /// The user declines consent: `access_denied` (AADSTS65004) to the redirect URI.
    case declineConsent
    /// This error is sent to the redirect URI.
    case fail(EntraErrorResponse)
}

/// A completed sign-in at the authorize endpoint (see ``EntraEmulator/signIns``).
public struct EmulatorSignInRecord: Sendable, Hashable {
    /// Who signed in.
    public let username: String
    /// The application.
    public let clientId: String
    /// The `prompt` sent.
    public let prompt: String?
    /// Whether credentials were entered (`true`), or the browser session was reused (`false`).
    public let isFreshSignIn: Bool
    /// Scopes the user declined.
    public let declinedScopes: [String]
}
