import MSALNative

/// Runs one operation per key at a time: callers asking for a key already in flight wait for
/// that operation's result instead of starting another. Used so concurrent silent calls that
/// need the same refresh send one token request.
final class SingleFlight<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let inFlight = Locked([Key: Task<Value, any Error>]())

    /// The result of `operation` for `key`, shared with every concurrent caller for `key`.
    /// The bool tells whether this caller started the operation.
    func run(_ key: Key, _ operation: @escaping @Sendable () async throws -> Value) async throws -> (
        value: Value, started: Bool
    ) {
        let (task, started) = inFlight.withLock { tasks -> (Task<Value, any Error>, Bool) in
            if let running = tasks[key] { return (running, false) }
            let task = Task<Value, any Error> { [inFlight] in
                defer { inFlight.withLock { _ = $0.removeValue(forKey: key) } }
                return try await operation()
            }
            tasks[key] = task
            return (task, true)
        }
        return (try await task.value, started)
    }

    /// How many operations are running.
    var count: Int { inFlight.withLock { $0.count } }
}
