import MSALNative

/// Runs one operation per key at a time: callers asking for a key already in flight wait for
/// that operation's result instead of starting another. Used so concurrent silent calls that
/// need the same refresh send one token request.
///
/// The first caller for a key (the leader) runs the operation itself, in its own task: no task is
/// created and no thread hop is added to the common, uncontended call. Should the leader's task be
/// cancelled, its followers do not inherit the cancellation: each one that is not cancelled itself
/// starts over (one of them becomes the new leader).
final class SingleFlight<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// One operation in flight and the callers waiting for it.
    private final class Flight: Sendable {
        typealias Outcome = (result: Result<Value, any Error>, leaderCancelled: Bool)

        private struct State {
            var outcome: Outcome?
            var waiters: [CheckedContinuation<Outcome, Never>] = []
        }

        private let state = Locked(State())

        func publish(_ outcome: Outcome) {
            let waiters = state.withLock { state -> [CheckedContinuation<Outcome, Never>] in
                state.outcome = outcome
                defer { state.waiters.removeAll() }
                return state.waiters
            }
            for waiter in waiters { waiter.resume(returning: outcome) }
        }

        func wait() async -> Outcome {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Outcome? in
                    if let outcome = state.outcome { return outcome }
                    state.waiters.append(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }

    private let inFlight = Locked([Key: Flight]())

    /// The result of `operation` for `key`, shared with every concurrent caller for `key`.
    /// The bool tells whether this caller ran the operation.
    func run(_ key: Key, _ operation: () async throws -> Value) async throws -> (value: Value, started: Bool) {
        while true {
            let (flight, leads) = inFlight.withLock { flights -> (Flight, Bool) in
                if let running = flights[key] { return (running, false) }
                let flight = Flight()
                flights[key] = flight
                return (flight, true)
            }
            if leads {
                let result: Result<Value, any Error>
                do {
                    result = .success(try await operation())
                } catch {
                    result = .failure(error)
                }
                // Gone from the table before the result is out: a later caller starts afresh.
                inFlight.withLock { _ = $0.removeValue(forKey: key) }
                flight.publish((result, Task.isCancelled))
                return (try result.get(), true)
            }
            let outcome = await flight.wait()
            if outcome.leaderCancelled, case .failure = outcome.result, !Task.isCancelled {
                continue
            }
            return (try outcome.result.get(), false)
        }
    }

    /// How many operations are running.
    var count: Int { inFlight.withLock { $0.count } }
}
