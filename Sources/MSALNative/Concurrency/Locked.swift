import Foundation

/// A value reachable only while holding its lock.
///
/// Built on `NSLock` (a pthread mutex on Linux) rather than `Synchronization.Mutex`, because
/// ThreadSanitizer reports false races on `Mutex` on Linux, and the test suite runs under it.
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only read or written inside `lock`.
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value and returns its result.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
