import Foundation
import MSALNative

/// Client-side throttling of silent refresh-token requests, as MSAL does it (reference §6):
///
/// - After HTTP 429, any 5xx, or a response with `Retry-After`, an identical request (same client,
///   token endpoint, refresh token and scopes: the *strict* thumbprint) is answered from here with
///   the same error for `Retry-After` seconds (a number or an HTTP date), 60 s by default, at most
///   3600 s.
/// - After an error that needs the user (any OAuth error body, which the app gets as -50002,
///   -50004 or another code), the identical request (every body parameter and the endpoint except
///   `grant_type`: the *full* thumbprint) is answered from here for 120 s, or until an interactive
///   sign-in succeeds.
///
/// The answered failure is the recorded one marked ``TokenRequestFailure/isThrottled`` (its error
/// carries ``MSALThrottlingCacheHitKey`` = 1). At most 1,000 entries are kept (least recently used
/// dropped).
final class ThrottlingCache: Sendable {
    static let defaultRetryAfter: TimeInterval = 60
    static let maximumRetryAfter: TimeInterval = 3600
    static let userInteractionWindow: TimeInterval = 120
    static let capacity = 1000

    private struct Entry {
        var failure: TokenRequestFailure
        var expiresOn: Date
        var lastUsed: UInt64
        var isUserInteraction: Bool
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var clock: UInt64 = 0
    }

    private let state = Locked(State())
    private let now: @Sendable () -> Date

    init(now: @escaping @Sendable () -> Date = { Date() }) {
        self.now = now
    }

    /// The thumbprints of a token request: its endpoint and form parameters.
    struct Thumbprints: Sendable {
        let strict: String
        let full: String

        init(endpoint: URL, parameters: [(name: String, value: String)]) {
            func value(_ name: String) -> String { parameters.first { $0.name == name }?.value ?? "" }
            let endpointText = endpoint.absoluteString.lowercased()
            strict = [value("client_id"), endpointText, value("refresh_token"), value("scope")]
                .joined(separator: "\u{1F}")
            full =
                ([endpointText]
                + parameters.filter { $0.name != "grant_type" }
                .sorted { $0.name < $1.name }.map { "\($0.name)=\($0.value)" })
                .joined(separator: "\u{1F}")
        }
    }

    /// The recorded failure for a request with these thumbprints, marked as a throttling answer,
    /// or `nil` when it may be sent.
    func throttledFailure(for thumbprints: Thumbprints) -> TokenRequestFailure? {
        let current = now()
        let hit: TokenRequestFailure? = state.withLock { state in
            state.clock += 1
            for key in ["s" + thumbprints.strict, "f" + thumbprints.full] {
                guard var entry = state.entries[key] else { continue }
                if entry.expiresOn <= current {
                    state.entries[key] = nil
                    continue
                }
                entry.lastUsed = state.clock
                state.entries[key] = entry
                return entry.failure
            }
            return nil
        }
        guard var hit else { return nil }
        hit.isThrottled = true
        return hit
    }

    /// How long, and for which requests, a failure throttles: decided by its values alone.
    enum Rule: Sendable, Hashable {
        /// Identical requests by the strict thumbprint, for `seconds` (429, 5xx or `Retry-After`).
        case serviceBusy(seconds: TimeInterval)
        /// Identical requests by the full thumbprint, for ``userInteractionWindow`` or until an
        /// interactive sign-in succeeds (an OAuth error: the user must act).
        case userInteraction
    }

    /// The rule for a sent request that failed at `now`, or `nil` when it throttles nothing (a
    /// network failure, a malformed success, another status without `Retry-After`).
    static func rule(for failure: TokenRequestFailure, now: Date) -> Rule? {
        let serviceBusy = failure.statusCode.map { $0 == 429 || (500...599).contains($0) } ?? false
        if serviceBusy || failure.retryAfter != nil {
            return .serviceBusy(
                seconds: failure.retryAfter.flatMap { retryAfterSeconds($0, now: now) } ?? defaultRetryAfter)
        }
        return failure.serverError != nil ? .userInteraction : nil
    }

    /// Records the outcome of a sent request that failed: throttles identical requests when
    /// ``rule(for:now:)`` says so (see the type's documentation). Successes need not be recorded.
    func record(_ failure: TokenRequestFailure, for thumbprints: Thumbprints) {
        let current = now()
        switch Self.rule(for: failure, now: current) {
        case .serviceBusy(let seconds):
            store(
                "s" + thumbprints.strict, failure, until: current.addingTimeInterval(seconds), userInteraction: false)
        case .userInteraction:
            store(
                "f" + thumbprints.full, failure, until: current.addingTimeInterval(Self.userInteractionWindow),
                userInteraction: true)
        case nil:
            break
        }
    }

    /// An interactive sign-in succeeded: lift every user-interaction throttle.
    func userInteractionSucceeded() {
        state.withLock { state in state.entries = state.entries.filter { !$0.value.isUserInteraction } }
    }

    /// `Retry-After` as seconds from `now`: a non-negative number (read by ``ServerNumber``, so
    /// `1e30` or `9.3e18` cannot trap; a number beyond a day counts as the cap), or an HTTP date;
    /// capped at one hour; `nil` when unreadable or negative (the default applies: the answer is
    /// already an error, which the app gets unchanged).
    static func retryAfterSeconds(_ value: String, now: Date) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        switch ServerNumber.seconds(text: trimmed, in: .retryAfter) {
        case .success(let seconds): return min(TimeInterval(seconds), maximumRetryAfter)
        case .failure(.outOfRange(let number, _)): return number < 0 ? nil : maximumRetryAfter
        case .failure(.notFinite): return nil
        case .failure(.notANumber): break
        }
        guard let date = httpDate(trimmed) else { return nil }
        return min(max(0, date.timeIntervalSince(now)), maximumRetryAfter)
    }

    /// An HTTP date (RFC 9110 §5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime forms).
    static func httpDate(_ text: String) -> Date? {
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    private func store(_ key: String, _ failure: TokenRequestFailure, until expiry: Date, userInteraction: Bool) {
        state.withLock { state in
            state.clock += 1
            state.entries[key] = Entry(
                failure: failure, expiresOn: expiry, lastUsed: state.clock, isUserInteraction: userInteraction)
            if state.entries.count > Self.capacity,
                let oldest = state.entries.min(by: { $0.value.lastUsed < $1.value.lastUsed })?.key
            {
                state.entries[oldest] = nil
            }
        }
    }
}
