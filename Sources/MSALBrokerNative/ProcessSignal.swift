import Glibc

/// Ends a child process that a test tool started, by its process id.
///
/// SIGKILL, because a child spawned from a thread of Swift's concurrency pool inherits that
/// thread's signal mask, in which SIGTERM and SIGINT are blocked: it would ignore them.
package enum ProcessSignal {
    package static func kill(_ processId: Int32) {
        _ = Glibc.kill(processId, SIGKILL)
    }
}
