import Foundation

/// What an access token is good for at a given time (reference §5, acquireTokenSilent step 1).
package enum AccessTokenStatus: Equatable, Sendable {
    /// Usable; `refreshNeeded` when `refresh_on` has passed (or `cached_at` is in the future), in
    /// which case the flow refreshes and falls back to this token if the refresh fails.
    case valid(refreshNeeded: Bool)
    /// Expired (within the buffer) but its `extended_expires_on` is still ahead: usable only when
    /// the server is unavailable and the app enabled extended lifetime.
    case extendedLifetime
    /// Expired: delete it.
    case expired

    /// The status at `now` (epoch seconds) with `buffer` seconds of safety before `expires_on`
    /// (`tokenExpirationBuffer`, 300 by default): expired iff `expires_on < now + buffer` (or there
    /// is none) or `cached_at > now`.
    package init(_ token: borrowing CacheAccessToken, now: Int64, buffer: Int64) {
        let cachedInFuture = (token.cachedAt ?? 0) > now
        guard let expiresOn = token.expiresOn, expiresOn >= now + buffer, !cachedInFuture else {
            if !cachedInFuture, let extended = token.extendedExpiresOn, extended > now {
                self = .extendedLifetime
            } else {
                self = .expired
            }
            return
        }
        let refreshDue = token.refreshOn.map { $0 < now } ?? false
        self = .valid(refreshNeeded: refreshDue || cachedInFuture)
    }
}

extension AccessTokenStatus {
    /// The status at `now` with `buffer` seconds of safety, decided as at full precision: a cached
    /// token's times are whole seconds, so `now` is rounded up (a token with 299.4 seconds left is
    /// inside a 300-second buffer), and so is a buffer with a fraction.
    init(_ token: borrowing CacheAccessToken, at now: Date, buffer: TimeInterval) {
        self.init(token, now: Self.wholeSecondAtOrAfter(now), buffer: Int64(max(0, buffer).rounded(.up)))
    }

    /// `now` in Unix seconds, rounded up (bounded so that the conversion cannot trap).
    static func wholeSecondAtOrAfter(_ now: Date) -> Int64 {
        let seconds = now.timeIntervalSince1970.rounded(.up)
        guard seconds.isFinite else { return 0 }
        return Int64(min(max(seconds, -1e15), 1e15))
    }
}
