/// Whether an account of a shared cache has lapsed: nothing can be acquired for it silently any
/// more, so its entries may go (``TokenStore/removeLapsedAccounts(now:unusedLifetime:)``).
///
/// Decided from the times its entries carry, and only from what this library understands: an
/// entry whose age or expiry it cannot tell keeps the account.
enum AccountLapse: Equatable, Sendable {
    /// An access token can still be served (or its expiry is unknown).
    case keepUsableAccessToken
    /// A refresh token carries neither `last_modification_time` nor `expires_on`: its age is unknown.
    case keepUnknownAge
    /// A refresh token may still be redeemable.
    case keepRefreshToken
    /// It has no refresh token (its server rejected it, or gives none), but tokens were acquired
    /// for it within the unused lifetime: the app may still show it, to sign in again.
    case keepRecentlyUsed
    /// Nothing was acquired for the account for the whole unused lifetime (the longest a refresh
    /// token stays redeemable unused), and no access token is left to serve.
    case removeUnused
    /// Every refresh token is past the `expires_on` its server gave, nothing was acquired since,
    /// and no access token is left to serve.
    case removeRefreshTokensExpired
    /// Only records without times are left (its tokens were removed for the client that had them).
    case removeNothingLeft

    /// Whether the account's entries go.
    var removes: Bool {
        switch self {
        case .keepUsableAccessToken, .keepUnknownAge, .keepRefreshToken, .keepRecentlyUsed: false
        case .removeUnused, .removeRefreshTokensExpired, .removeNothingLeft: true
        }
    }

    /// What the entries of one account (one home account id) say, in epoch seconds.
    struct Evidence: Equatable, Sendable {
        /// The latest moment one of its access tokens may be served (`expires_on`, or
        /// `extended_expires_on` when later); `nil` when it has none.
        var accessTokensServableUntil: Int64? = nil
        /// An access token without `expires_on`.
        var accessTokenOfUnknownExpiry = false
        /// Each refresh token's `expires_on` (`nil`: the server did not say).
        var refreshTokenExpiries: [Int64?] = []
        /// Refresh tokens with neither `last_modification_time` nor `expires_on`.
        var refreshTokensOfUnknownAge = 0
        /// The newest sign that tokens were acquired for it: refresh tokens'
        /// `last_modification_time`, access tokens' `cached_at`.
        var lastActivity: Int64? = nil
    }

    /// The decision for an account at `now`; `unusedLifetime` (seconds, more than 0) is how long
    /// a refresh token stays redeemable without use.
    static func decide(_ evidence: Evidence, now: Int64, unusedLifetime: Int64) -> AccountLapse {
        if evidence.accessTokenOfUnknownExpiry { return .keepUsableAccessToken }
        if let until = evidence.accessTokensServableUntil, until > now { return .keepUsableAccessToken }
        if evidence.refreshTokensOfUnknownAge > 0 { return .keepUnknownAge }
        let (unusedSince, overflow) = now.subtractingReportingOverflow(max(0, unusedLifetime))
        if let last = evidence.lastActivity, !overflow, last <= unusedSince { return .removeUnused }
        if evidence.refreshTokenExpiries.isEmpty {
            return evidence.lastActivity == nil ? .removeNothingLeft : .keepRecentlyUsed
        }
        // A token acquired after a refresh token's stated expiry shows that it still worked (a
        // sliding lifetime the server did not restate): keep it.
        let allExpired = evidence.refreshTokenExpiries.allSatisfy { expiry in
            guard let expiry else { return false }
            return expiry <= now && (evidence.lastActivity ?? Int64.min) < expiry
        }
        return allExpired ? .removeRefreshTokensExpired : .keepRefreshToken
    }
}
