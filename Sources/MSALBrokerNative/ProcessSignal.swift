import Glibc

/// Signals to a child process that a test tool started, by its process id.
///
/// Ending it is SIGKILL, because a child spawned from a thread of Swift's concurrency pool inherits that
/// thread's signal mask, in which SIGTERM and SIGINT are blocked: it would ignore them.
package enum ProcessSignal {
    package static func kill(_ processId: Int32) {
        _ = Glibc.kill(processId, SIGKILL)
    }

    /// Stops it (SIGSTOP): it keeps its sockets but answers nothing until ``resume(_:)``.
    package static func suspend(_ processId: Int32) {
        _ = Glibc.kill(processId, SIGSTOP)
    }

    /// Lets a stopped process run again (SIGCONT).
    package static func resume(_ processId: Int32) {
        _ = Glibc.kill(processId, SIGCONT)
    }
}
