import Foundation

extension AccessTokenStatus {
    /// The status at `now` with `buffer` seconds of safety, decided as at full precision: expired
    /// when `expires_on < now + buffer` with `now` to the fraction of a second.
    ///
    /// A cached token's times are whole Unix seconds, so comparing them with `now` rounded up is
    /// that decision: a token with 299.4 seconds left is inside a 300-second buffer, where
    /// `now` rounded down would still serve it. A buffer with a fraction counts as the next whole
    /// second.
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
