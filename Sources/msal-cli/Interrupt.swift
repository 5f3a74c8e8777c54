import Dispatch
import Foundation
import MSAL
import Synchronization

/// Ctrl-C while a command runs: the first SIGINT cancels the command's task (and the browser
/// sign-in in progress), which then ends with ``Interrupted``; a second one exits at once.
enum Interrupt {
    /// The command was interrupted; the tool exits with ``ExitCode/interrupted``.
    struct Interrupted: Error {}

    /// Whether SIGINT arrived.
    private final class Flag: Sendable {
        let value = Atomic<Bool>(false)
    }

    /// Runs `body` in a task that SIGINT cancels.
    static func run(_ body: @escaping @Sendable () async throws -> ExitCode) async throws -> ExitCode {
        let flag = Flag()
        let task = Task { try await body() }
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler {
            if flag.value.exchange(true, ordering: .sequentiallyConsistent) {
                exit(ExitCode.interrupted.rawValue)
            }
            Console.error("")
            task.cancel()
            MSALPublicClientApplication.cancelCurrentWebAuthSession()
        }
        source.resume()
        defer {
            source.cancel()
            signal(SIGINT, SIG_DFL)
        }
        do {
            let code = try await task.value
            if flag.value.load(ordering: .sequentiallyConsistent) { throw Interrupted() }
            return code
        } catch {
            if flag.value.load(ordering: .sequentiallyConsistent) { throw Interrupted() }
            throw error
        }
    }
}
