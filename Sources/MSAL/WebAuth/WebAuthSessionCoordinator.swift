import Foundation
import MSALNative

/// Allows one interactive web authentication at a time in the process, and lets the app cancel
/// it (`cancelCurrentWebAuthSession()`) or complete it with a redirect URL it received itself
/// (`handleMSALResponse(_:sourceApplication:)`).
final class WebAuthSessionCoordinator: Sendable {
    /// The process-wide coordinator the public API uses.
    static let shared = WebAuthSessionCoordinator()

    private let current = Locked<WebAuthSession?>(nil)

    init() {}

    /// Reserves the interactive session.
    ///
    /// - Throws: -50000 + -42402 when another interactive session is in progress.
    func begin(redirectURI: RedirectURI, correlationId: UUID?) throws -> WebAuthSession {
        try current.withLock { current in
            guard current == nil else {
                throw MSALErrors.make(
                    .internalErrorInteractiveSessionAlreadyRunning,
                    "Another interactive sign-in is already in progress; only one can run at a time. Wait for the "
                        + "other acquireToken call to finish, or cancel it with cancelCurrentWebAuthSession().",
                    ErrorDetails(correlationId: correlationId))
            }
            let session = WebAuthSession(coordinator: self, redirectURI: redirectURI, correlationId: correlationId)
            current = session
            return session
        }
    }

    /// The session in progress, if any.
    var currentSession: WebAuthSession? {
        current.withLock { $0 }
    }

    /// Cancels the session in progress: its `acquireToken` fails with ``MSALError/userCanceled``.
    ///
    /// - Returns: whether a session was in progress.
    @discardableResult
    func cancelCurrent() -> Bool {
        guard let session = currentSession else { return false }
        session.cancel(
            "The interactive sign-in was cancelled by cancelCurrentWebAuthSession() before the browser returned.")
        return true
    }

    /// Completes the session in progress with a redirect URL the app received.
    ///
    /// - Returns: `true` when `url` is a redirect to the pending session's redirect URI and was taken;
    ///   `false` when no session is in progress, the URL is not its redirect, or it already ended.
    func handle(url: URL) -> Bool {
        guard let session = currentSession else { return false }
        return session.offer(url)
    }

    /// Releases `session` if it is the current one.
    func end(_ session: WebAuthSession) {
        current.withLock { current in
            if current === session { current = nil }
        }
    }
}

/// One reserved interactive session: whichever comes first of the user agent's result, a
/// cancellation, or a redirect handed in by the app ends it.
final class WebAuthSession: Sendable {
    let redirectURI: RedirectURI
    let correlationId: UUID?
    private let coordinator: WebAuthSessionCoordinator
    private let outcome = OneShotResult<URL>()
    /// The loopback port, once a listener is bound (only redirects to that port are taken).
    private let port = Locked<Int?>(nil)

    fileprivate init(coordinator: WebAuthSessionCoordinator, redirectURI: RedirectURI, correlationId: UUID?) {
        self.coordinator = coordinator
        self.redirectURI = redirectURI
        self.correlationId = correlationId
    }

    /// Restricts ``offer(_:)`` to redirects to `port`.
    func setLoopbackPort(_ port: Int) {
        self.port.withLock { $0 = port }
    }

    /// Ends the session with ``MSALError/userCanceled`` (if it has not ended already).
    func cancel(_ message: String) {
        outcome.complete(
            .failure(MSALErrors.make(.userCanceled, message, ErrorDetails(correlationId: correlationId))))
    }

    /// Ends the session with `url` when it is a redirect to this session's redirect URI.
    func offer(_ url: URL) -> Bool {
        guard redirectURI.matches(url, port: port.withLock({ $0 })) else { return false }
        return outcome.complete(.success(url))
    }

    /// Runs the user agent in a child task and returns the first outcome: its result, a redirect
    /// handed in with ``offer(_:)``, ``cancel(_:)``, or the cancellation of the calling task. The
    /// user agent's task is then cancelled and awaited, so its resources (a listening port) are
    /// released before this returns.
    func run(_ userAgent: @escaping @Sendable () async -> Result<URL, NSError>) async -> Result<URL, NSError> {
        guard !outcome.isCompleted else { return await outcome.wait() }
        let outcome = self.outcome
        let task = Task {
            _ = outcome.complete(await userAgent())
        }
        let result = await withTaskCancellationHandler {
            await outcome.wait()
        } onCancel: {
            self.cancel("The interactive sign-in was cancelled because the Swift task that awaited it was cancelled.")
        }
        task.cancel()
        await task.value
        return result
    }

    /// Releases the reservation (once the session is over, or was never run).
    func end() {
        coordinator.end(self)
    }
}
