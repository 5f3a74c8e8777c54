/// Whether an account of a shared cache has lapsed: nothing can be acquired for it silently any
/// more, so its entries may go (``TokenStore/removeLapsedAccounts(now:unusedLifetime:)``). Decided
/// from the times its entries carry; an entry whose age or expiry it cannot tell keeps the account.
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
    var removes: Bool { [.removeUnused, .removeRefreshTokensExpired, .removeNothingLeft].contains(self) }

    /// What the entries of one account (one home account id) say, in epoch seconds.
    struct Evidence: Equatable, Sendable {
        /// The latest moment one of its access tokens may be served (`expires_on`, or
        /// `extended_expires_on` when later); `nil` when it has none.
        var accessTokensServableUntil: Int64? = nil
        /// An access token without `expires_on`.
        var accessTokenOfUnknownExpiry = false
        /// Its refresh tokens.
        var refreshTokens = 0
        /// Those whose server stated no expiry.
        var refreshTokensWithoutExpiry = 0
        /// The earliest and the latest expiry stated for its refresh tokens.
        var refreshTokenExpiries: ClosedRange<Int64>? = nil
        /// Refresh tokens with neither `last_modification_time` nor `expires_on`.
        var refreshTokensOfUnknownAge = 0
        /// The newest sign that tokens were acquired for it: refresh tokens'
        /// `last_modification_time`, access tokens' `cached_at`.
        var lastActivity: Int64? = nil

        /// Counts a refresh token and its stated expiry.
        mutating func addRefreshToken(expiresOn: Int64?) {
            refreshTokens += 1
            guard let expiresOn else {
                refreshTokensWithoutExpiry += 1
                return
            }
            let known = refreshTokenExpiries ?? expiresOn...expiresOn
            refreshTokenExpiries = min(known.lowerBound, expiresOn)...max(known.upperBound, expiresOn)
        }
    }

    /// The decision for an account at `now`; `unusedLifetime` (seconds, more than 0) is how long
    /// a refresh token stays redeemable without use.
    static func decide(_ evidence: Evidence, now: Int64, unusedLifetime: Int64) -> AccountLapse {
        if evidence.accessTokenOfUnknownExpiry { return .keepUsableAccessToken }
        if let until = evidence.accessTokensServableUntil, until > now { return .keepUsableAccessToken }
        if evidence.refreshTokensOfUnknownAge > 0 { return .keepUnknownAge }
        let (unusedSince, overflow) = now.subtractingReportingOverflow(max(0, unusedLifetime))
        if let last = evidence.lastActivity, !overflow, last <= unusedSince { return .removeUnused }
        if evidence.refreshTokens == 0 {
            return evidence.lastActivity == nil ? .removeNothingLeft : .keepRecentlyUsed
        }
        // Every refresh token past its stated expiry. A token acquired after the earliest of them
        // shows that it still worked (a sliding lifetime the server did not restate): keep.
        guard evidence.refreshTokensWithoutExpiry == 0, let expiries = evidence.refreshTokenExpiries,
            expiries.upperBound <= now, (evidence.lastActivity ?? Int64.min) < expiries.lowerBound
        else { return .keepRefreshToken }
        return .removeRefreshTokensExpired
    }

    /// Seconds between two checks of one cache: accounts lapse after days, so a check a minute
    /// is as good as one per change, at a sixtieth of the cost for a busy fleet.
    static let checkInterval: Int64 = 60

    /// Whether a change made at `now` checks the accounts, the previous check having been at
    /// `lastCheck` (`nil`: never). A clock that went back checks.
    static func isCheckDue(now: Int64, lastCheck: Int64?) -> Bool {
        guard let lastCheck else { return true }
        return now < lastCheck || now - lastCheck >= checkInterval
    }
}
