import MSALNative

/// Tasks taking turns, first come first served. Unlike a lock, a turn may be held across
/// suspension points; a task waiting for its turn is suspended, so no thread is blocked.
///
/// The async writers of a ``TokenCache`` take turns, so that of many writes waiting for another
/// process's lock on the cache file one polls it (``LockWait``), in the order they came, as the
/// cache's own lock ordered them before it stopped being held while waiting. Waiting ignores
/// cancellation: the write may save a refresh token the server has just rotated.
final class TurnQueue: Sendable {
    private struct State {
        var taken = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    /// Runs `body` in this caller's turn, after the turns of those who came before.
    func withTurn<Result>(_ body: () async throws -> Result) async throws -> Result {
        await take()
        defer { pass() }
        return try await body()
    }

    private func take() async {
        let free = state.withLock { state in
            guard !state.taken else { return false }
            state.taken = true
            return true
        }
        if free { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                guard state.taken else {
                    state.taken = true
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Gives the turn to the first waiting caller, or frees it.
    private func pass() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.taken = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
