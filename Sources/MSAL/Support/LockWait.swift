import Foundation
import MSALNative

/// The wait for a lock another process may hold (the cache file's lock files, the cross-process
/// refresh lock): a deadline and a doubling pause with a cap. After each try that found the lock
/// held, ``next(now:)`` says whether to try again and after how long, or to give up; the caller
/// chooses how to wait: ``suspending(ignoringCancellation:_:)`` from async code (the task is
/// suspended, the cooperative thread stays free), ``blocking(_:)`` only from synchronous API
/// (it blocks its own calling thread). Neither is ever called holding an in-process lock.
///
/// Times are monotonic nanoseconds (``now()``); the decision itself (``step(now:deadline:pause:)``)
/// is pure.
struct LockWait: Sendable, Equatable {
    /// The pauses between tries: the first, doubled after each try up to the maximum.
    struct Backoff: Sendable, Equatable {
        var first: Int64
        var maximum: Int64

        /// `<cache>.lock` (`flock`): short pauses with a low cap, since `flock` keeps no queue and
        /// a waiter polling rarely would be starved by processes that take it again and again.
        static let fileLock = Backoff(first: 500_000, maximum: 2_000_000)
        /// msal-extensions' `<cache>.lockfile`, which Python holds around a whole rewrite.
        static let extensionsLock = Backoff(first: 1_000_000, maximum: 20_000_000)
        /// The refresh lock (`<cache>.refresh.lock`), held around a token request.
        static let refreshLock = Backoff(first: 2_000_000, maximum: 50_000_000)
    }

    /// What one try at a lock gave.
    enum Attempt<Value> {
        /// The lock (or locks) taken.
        case taken(Value)
        /// Held by another: wait with these pauses (a caller that takes several locks in turn
        /// names the one it now waits for).
        case wait(Backoff)
    }

    /// What to do after a try that found the lock held.
    enum Step: Sendable, Equatable {
        /// Try again after this many nanoseconds.
        case retry(afterNanoseconds: Int64)
        /// The deadline passed: stop waiting.
        case giveUp
    }

    /// The seconds the whole wait may last (for error messages).
    let timeout: Double
    /// When the wait ends (monotonic nanoseconds).
    let deadline: Int64
    private(set) var backoff: Backoff
    /// The next pause.
    private(set) var pause: Int64

    /// A wait of `timeout` seconds from `now` (negative counts as 0).
    init(timeout: Double, backoff: Backoff, now: Int64 = LockWait.now()) {
        self.timeout = timeout
        let span = timeout.isFinite ? max(0, min(timeout, 1e9)) : 1e9
        deadline = now + Int64(span * 1e9)
        self.backoff = backoff
        pause = backoff.first
    }

    /// The decision after a failed try at `now`: give up once the deadline has passed, else try
    /// again after `pause`, shortened so that the last try comes at the deadline.
    static func step(now: Int64, deadline: Int64, pause: Int64) -> Step {
        guard now < deadline else { return .giveUp }
        return .retry(afterNanoseconds: max(1, min(pause, deadline - now)))
    }

    /// The decision after a failed try at `now` (``step(now:deadline:pause:)``); the next pause
    /// is doubled, up to the backoff's maximum.
    mutating func next(now: Int64 = LockWait.now()) -> Step {
        let step = Self.step(now: now, deadline: deadline, pause: pause)
        pause = min(max(pause, 1) * 2, backoff.maximum)
        return step
    }

    /// Waits for another lock from here on (the next of several taken in turn), within the same
    /// deadline.
    mutating func continueWith(_ backoff: Backoff) {
        self.backoff = backoff
        pause = backoff.first
    }

    /// Whether the deadline has passed at `now`.
    func isOver(now: Int64 = LockWait.now()) -> Bool { now >= deadline }

    /// The monotonic clock the waits use (`CLOCK_MONOTONIC_COARSE`, in nanoseconds).
    static func now() -> Int64 { FileSystem.coarseMonotonicNanoseconds() }

    /// Calls `attempt` until it takes the lock, suspending the task between tries; `nil` when
    /// the deadline passed first. With `ignoringCancellation`, a cancelled task keeps waiting (a
    /// cache write that saves a redeemed refresh token must not be dropped); otherwise
    /// cancellation ends the wait with `CancellationError`. `attempt` throws nothing: an error
    /// thrown out of such a closure through this async method reached its caller corrupted (a bad
    /// pointer when bridged, Swift 6.3 debug build), so a try that fails says so in its value.
    mutating func suspending<Value>(
        ignoringCancellation: Bool = false, _ attempt: () -> Attempt<Value>
    ) async throws -> Value? {
        while true {
            let pause: Int64
            switch attempt() {
            case .taken(let value): return value
            case .wait(let backoff):
                guard let next = pauseBeforeRetry(waitingWith: backoff) else { return nil }
                pause = next
            }
            if ignoringCancellation {
                await Self.sleepIgnoringCancellation(nanoseconds: pause)
            } else {
                try await Task.sleep(for: .nanoseconds(pause))
            }
        }
    }

    /// Calls `attempt` until it takes the lock, blocking the calling thread between tries; `nil`
    /// when the deadline passed first. Only for synchronous API, whose caller chose to block its
    /// thread.
    mutating func blocking<Value, Failure: Error>(
        _ attempt: () throws(Failure) -> Attempt<Value>
    ) throws(Failure) -> Value? {
        while true {
            switch try attempt() {
            case .taken(let value): return value
            case .wait(let backoff):
                guard let pause = pauseBeforeRetry(waitingWith: backoff) else { return nil }
                Thread.sleep(forTimeInterval: Double(pause) / 1e9)
            }
        }
    }

    /// The pause before the next try (``next(now:)``), `nil` to give up; a new `backoff` starts
    /// its pauses from its first.
    mutating func pauseBeforeRetry(waitingWith backoff: Backoff) -> Int64? {
        if backoff != self.backoff { continueWith(backoff) }
        guard case .retry(let pause) = next() else { return nil }
        return pause
    }

    /// Suspends for `nanoseconds` even when the task is cancelled: the sleep runs in a task of
    /// its own, which does not inherit the cancellation.
    static func sleepIgnoringCancellation(nanoseconds: Int64) async {
        await Task.detached { try? await Task.sleep(for: .nanoseconds(nanoseconds)) }.value
    }
}
