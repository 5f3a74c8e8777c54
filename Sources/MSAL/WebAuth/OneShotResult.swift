import Foundation
import MSALNative

/// A result delivered once, by whichever party gets there first (the browser, a timeout, a cancel),
/// to one waiting task. Later deliveries are ignored.
final class OneShotResult<Value: Sendable>: Sendable {
    private struct State {
        var result: Result<Value, NSError>?
        var continuation: CheckedContinuation<Result<Value, NSError>, Never>?
    }

    private let state = Locked(State())

    init() {}

    /// Whether a result was delivered.
    var isCompleted: Bool {
        state.withLock { $0.result != nil }
    }

    /// Delivers `result` unless one was delivered already; returns whether this one was taken.
    @discardableResult
    func complete(_ result: Result<Value, NSError>) -> Bool {
        let continuation = state.withLock { state -> CheckedContinuation<Result<Value, NSError>, Never>?? in
            guard state.result == nil else { return .none }
            state.result = result
            defer { state.continuation = nil }
            return .some(state.continuation)
        }
        guard let continuation else { return false }
        continuation?.resume(returning: result)
        return true
    }

    /// Waits for the result. Only one task may wait.
    func wait() async -> Result<Value, NSError> {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Result<Value, NSError>? in
                if let result = state.result { return result }
                state.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
