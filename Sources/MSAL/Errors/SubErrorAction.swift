/// What the silent flow must change in the cache after the server rejected a refresh token,
/// decided by the OAuth error and suberror.
enum SubErrorAction: Sendable, Hashable {
    /// Nothing to change.
    case none
    /// `invalid_grant` + `bad_token`: delete the refresh token that was used.
    case deleteRefreshToken
    /// `client_mismatch` after a family refresh token: set the app metadata's `family_id` to "".
    case clearFamilyId
    /// `invalid_grant` + `user_account_deleted`: remove every artifact of the account for this client.
    case removeAccount

    /// The action after a failed redemption: the server's OAuth error and suberror decide; a
    /// failure without one (network, unhandled status, local) changes nothing.
    static func after(_ failure: TokenRequestFailure, usedFamilyRefreshToken: Bool) -> SubErrorAction {
        guard let serverError = failure.serverError else { return .none }
        return forServerError(
            oauthError: serverError.error, subError: serverError.subError,
            usedFamilyRefreshToken: usedFamilyRefreshToken)
    }

    /// The action for a server error; `usedFamilyRefreshToken` tells whether the rejected token
    /// was a family (FOCI) refresh token.
    static func forServerError(oauthError: String?, subError: String?, usedFamilyRefreshToken: Bool) -> SubErrorAction {
        let error = OAuthErrorMapping.normalized(oauthError)
        switch OAuthErrorMapping.normalized(subError) {
        case "bad_token" where error == "invalid_grant":
            return .deleteRefreshToken
        case "user_account_deleted" where error == "invalid_grant":
            return .removeAccount
        case "client_mismatch" where usedFamilyRefreshToken:
            return .clearFamilyId
        default:
            return .none
        }
    }
}
