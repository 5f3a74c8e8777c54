/// What the device code poller does after a poll failed (RFC 8628 §3.5), as a pure function of
/// the typed failure: the OAuth error the token endpoint answered, matched case-insensitively.
enum DeviceCodePollDecision: Sendable, Hashable {
    /// `authorization_pending`: poll again after the interval.
    case keepPolling
    /// `slow_down`: poll again, 5 seconds more slowly.
    case slowDown
    /// `expired_token` or `code_expired`: the device code expired.
    case expired
    /// `authorization_declined` or `access_denied`: the user declined (-50005); `oauthError` is
    /// the server's error, lowercased.
    case declined(oauthError: String)
    /// Anything else (another OAuth error, an unhandled status, a network failure): report it.
    case fail

    static func decide(_ failure: TokenRequestFailure) -> DeviceCodePollDecision {
        guard let oauthError = failure.serverError?.error.lowercased() else { return .fail }
        switch oauthError {
        case "authorization_pending": return .keepPolling
        case "slow_down": return .slowDown
        case "expired_token", "code_expired": return .expired
        case "authorization_declined", "access_denied": return .declined(oauthError: oauthError)
        default: return .fail
        }
    }
}
