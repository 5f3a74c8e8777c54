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
    /// (``MSALPublicClientApplicationConfig``'s `tokenExpirationBuffer`, 300 by default).
    ///
    /// Expired iff `expires_on < now + buffer` or `cached_at > now`. A token without
    /// `expires_on` is expired.
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
