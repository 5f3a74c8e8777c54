import Foundation
import MSAL
import MSALTestSupport

/// `msal demo`: every flow of the library against an emulator in this process, with a transcript.
enum DemoCommand {
    static let command = ToolCommand(
        name: "demo", summary: "walk every flow against an in-process emulator (offline, a few seconds)",
        help: """
            usage: msal demo [--verbose]

            Starts the Entra ID emulator in this process (loopback HTTPS, its own CA, posing as
            login.microsoftonline.com and contosob2c.b2clogin.com) and walks every flow through the
            public API with a readable transcript: interactive sign-in with a scripted browser, silent
            from the cache, refresh after expiry, declined scopes, a claims challenge, device code,
            an Azure AD B2C policy, one account in two tenants, throttling, sign-out.

            Each step checks what it expects. Exit code 0 when every step behaved as expected, 1
            otherwise (the failing steps are named). Fully offline; the cache is in memory and nothing
            is left on disk. Tokens are shown shortened.

            Options:
              --verbose          MSAL's log on standard error (personal data masked)
            """,
        specification: .init(valueOptions: [], flagOptions: ["verbose"]), run: run)

    static let steps: [DemoStep] = [
        .interactiveSignIn, .silentFromCache, .refreshAfterExpiry, .declinedScopes, .claimsChallenge, .deviceCode,
        .b2cPolicy, .multiTenant, .throttled, .signOut,
    ]

    static func run(_ arguments: CommandLineArguments, _ environment: [String: String]) async throws -> ExitCode {
        let started = Date()
        let failed = try await runSteps()
        let seconds = Date().timeIntervalSince(started)
        if failed.isEmpty {
            Console.line("✓ All \(steps.count) steps behaved as expected in \(DemoTranscript.format(seconds)).")
            return .success
        }
        let names = failed.map { "\($0.number) \"\($0.title)\"" }.joined(separator: ", ")
        Console.line("✗ \(failed.count) of \(steps.count) steps did not behave as expected: \(names).")
        Console.error("msal demo: failed at step \(names)")
        return .failure
    }

    /// Runs every step; returns the ones that failed. The emulator (and its CA file) is released
    /// before this returns.
    private static func runSteps() async throws -> [(number: Int, title: String)] {
        let session = try DemoSession()
        defer { session.emulator.stop() }
        DemoTranscript.header([
            "msal demo: every flow of MSAL for Linux against an Entra ID emulator running in this process.",
            "Emulator: \(session.emulator.baseURL.absoluteString), answering for login.microsoftonline.com and "
                + "contosob2c.b2clogin.com (CONNECT_TO), HTTPS with its own CA; no network needed.",
            "App: client id \(session.clientId), authority \(MSALPublicClientApplicationConfig.defaultAuthorityURL), "
                + "token cache in memory. Tokens are shown as their first 8 characters and length.",
        ])
        var failed: [(number: Int, title: String)] = []
        for (index, step) in steps.enumerated() {
            DemoTranscript.stepStarted(index + 1, of: steps.count, step)
            let stepStarted = Date()
            do {
                try await step.run(session)
                DemoTranscript.stepPassed(seconds: Date().timeIntervalSince(stepStarted))
            } catch {
                // Ctrl-C cancels the task: the library reports -50005 or a CancellationError.
                if Task.isCancelled { throw Interrupt.Interrupted(reason: .interrupt) }
                let reason = error is DemoFailure ? "\(error)" : "unexpected error \(describe(error))"
                DemoTranscript.stepFailed(reason, seconds: Date().timeIntervalSince(stepStarted))
                failed.append((index + 1, step.title))
            }
        }
        return failed
    }

    private static func describe(_ error: any Error) -> String {
        let nsError = error as NSError
        let info = MSALErrorInfo(nsError)
        return "\(DemoSession.describe(nsError)): \(info.errorDescription ?? nsError.localizedDescription)"
    }
}
