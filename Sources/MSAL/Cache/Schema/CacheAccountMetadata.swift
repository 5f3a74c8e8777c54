/// The sign-in state of an account for one client (reference §5 "Account metadata").
package enum SignInState: String, Sendable {
    case unknown
    case signedIn = "signed_in"
    case signedOut = "signed_out"
}

/// What the cache remembers about an account for one client: its sign-in state and the
/// authority map (request authority → authority that answered). Persisted in the
/// `AccountMetadata` section, which other MSALs keep untouched as an unknown section:
/// `{"<client_id>": {"client_id", "account_metadata_map": {"<home_account_id>": {"client_id",
/// "home_account_id", "sign_in_state", "athority_map": {"URLMap-": {request: result}}}}}}`
/// (`athority_map` is spelled as in MSAL for iOS/macOS).
struct CacheAccountMetadata: Sendable, Equatable {
    var clientId: String
    var homeAccountId: String
    var signInState: SignInState = .unknown
    /// Keyed by the map name (`URLMap-` or `URLMap-instance_aware=YES`), then request authority URL.
    var authorityMap: [String: [String: String]] = [:]
    var unknown: UnknownFields = .none
}
