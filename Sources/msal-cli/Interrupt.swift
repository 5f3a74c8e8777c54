import Dispatch
import Foundation
import MSAL
import Synchronization

/// What ends a command early: Ctrl-C (SIGINT), SIGTERM, or `--timeout`. The first one cancels the
/// command's task (and the browser sign-in in progress), which then ends with ``Interrupted``: the
/// browser wait or the polling stops and nothing is cached. A second signal exits at once, and so
/// does a command that has not stopped a few seconds after it was cancelled.
enum Interrupt {
    /// Why the command was stopped.
    enum Reason: Int, Sendable {
        case interrupt = 1
        case terminate = 2
        case timeout = 3

        /// The exit code it ends the tool with.
        var exitCode: ExitCode {
            switch self {
            case .interrupt: .interrupted
            case .terminate: .terminated
            case .timeout: .timedOut
            }
        }
    }

    /// The command was stopped; the tool exits with the reason's exit code.
    struct Interrupted: Error {
        let reason: Reason
    }

    /// How long a cancelled command may take to stop before the tool exits anyway.
    static let grace: Double = 3

    /// The reason, once one arrived (0 before).
    private final class State: Sendable {
        let reason = Atomic<Int>(0)

        /// Records `reason`; `false` when one had already arrived.
        func arrive(_ reason: Reason) -> Bool {
            reason.rawValue != 0
                && self.reason.compareExchange(
                    expected: 0, desired: reason.rawValue, ordering: .sequentiallyConsistent
                ).exchanged
        }

        var current: Reason? { Reason(rawValue: reason.load(ordering: .sequentiallyConsistent)) }
    }

    /// Runs `body` in a task that SIGINT, SIGTERM and, after `timeout` seconds, the clock cancel.
    static func run(timeout: Double?, _ body: @escaping @Sendable () async throws -> ExitCode) async throws -> ExitCode
    {
        let state = State()
        let task = Task { try await body() }
        let stop: @Sendable (Reason) -> Void = { reason in
            guard state.arrive(reason) else {
                // A second signal: the user insists.
                if reason != .timeout { exit(state.current?.exitCode.rawValue ?? reason.exitCode.rawValue) }
                return
            }
            if reason == .interrupt { Console.error("") }  // past the ^C the terminal echoed
            task.cancel()
            MSALPublicClientApplication.cancelCurrentWebAuthSession()
            DispatchQueue.global().asyncAfter(deadline: .now() + grace) {
                Console.error("msal: the command did not stop within \(Int(grace)) s of being cancelled")
                exit(reason.exitCode.rawValue)
            }
        }
        var sources: [any DispatchSourceProtocol] = []
        for (number, reason) in [(SIGINT, Reason.interrupt), (SIGTERM, .terminate)] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stop(reason) }
            source.resume()
            sources.append(source)
        }
        if let timeout {
            let timer = DispatchSource.makeTimerSource(queue: .global())
            timer.schedule(deadline: .now() + timeout)
            timer.setEventHandler { stop(.timeout) }
            timer.resume()
            sources.append(timer)
        }
        defer {
            for source in sources { source.cancel() }
            signal(SIGINT, SIG_DFL)
            signal(SIGTERM, SIG_DFL)
        }
        do {
            let code = try await task.value
            if let reason = state.current { throw Interrupted(reason: reason) }
            return code
        } catch {
            if let reason = state.current { throw Interrupted(reason: reason) }
            throw error
        }
    }
}
