import Foundation
import MSAL

/// The tool's exit codes, documented in `Docs/CLI.md`: scripts branch on them, so they never
/// change meaning.
enum ExitCode: Int32, CaseIterable {
    /// Success.
    case success = 0
    /// Any other failure (an MSAL -50000 error, a cache or configuration failure, a failed demo).
    case failure = 1
    /// The command line was wrong: usage is printed to standard error.
    case usage = 2
    /// Sign-in needed: MSAL -50002 (`interactionRequired`) or -50142 (password reset), or no account
    /// in the cache. Run `msal login`.
    case interactionRequired = 3
    /// The network failed (`NSURLErrorDomain`): no connection, DNS, TLS, timeout.
    case network = 4
    /// The user cancelled: MSAL -50005 (browser closed or timed out, device code declined).
    case userCanceled = 5
    /// Some scopes were declined: MSAL -50003.
    case declinedScopes = 6
    /// Throttled: the service answered 429, or the client-side throttling cache refused to repeat a
    /// request that was just throttled (`MSALThrottlingCacheHitKey`). Wait, then retry.
    case throttled = 7
    /// `msal rest`: the API answered with a status other than 2xx (and other than 429); the body
    /// is still printed, as `curl --fail-with-body` does.
    case httpError = 8
    /// `--timeout` expired before the command finished: 124, as `timeout(1)` exits.
    case timedOut = 124
    /// Interrupted with Ctrl-C (SIGINT): 128 + 2, the shell convention.
    case interrupted = 130
    /// Stopped by SIGTERM (after the same cleanup as Ctrl-C): 128 + 15, the shell convention.
    case terminated = 143

    /// The exit code for an error the library reported.
    init(for error: NSError) {
        if error.domain == NSURLErrorDomain {
            self = .network
            return
        }
        let info = MSALErrorInfo(error)
        if info.isThrottled || info.httpStatusCode == 429 {
            self = .throttled
            return
        }
        switch info.msalError {
        case .interactionRequired?, .serverInvalidRequestResetPasswordRequired?: self = .interactionRequired
        case .userCanceled?: self = .userCanceled
        case .serverDeclinedScopes?: self = .declinedScopes
        default: self = .failure
        }
    }
}
