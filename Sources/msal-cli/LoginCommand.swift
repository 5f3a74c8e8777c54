import Foundation
import MSAL

/// `msal login`: an interactive sign-in in the system browser (loopback redirect), or the device
/// code flow.
enum LoginCommand {
    static let command = ToolCommand(
        name: "login", summary: "sign in (system browser, or --device-code) and cache the account",
        help: """
            usage: msal login [--device-code] --client-id ID [--authority URL] [--scopes "a b"]
                              [--redirect-uri URI] [--cache FILE] [--ca-file PEM] [--verbose]

            Signs in and caches the account and its tokens. Prints the account on standard output.

            Without --device-code the system browser opens the sign-in page ($BROWSER, else xdg-open)
            and the redirect comes back to a listener on http://localhost:<free port> (or the port of
            --redirect-uri). The browser gets 10 minutes. With --device-code, the code and the page to
            enter it on are printed; sign in on any device. Ctrl-C cancels (exit 130).

            Options:
              --device-code      use the device code flow (no browser on this machine)
              --scopes "a b"     scopes to consent to (spaces or commas), e.g. "User.Read"; default none
                                 (sign-in only). openid, profile and offline_access are always asked.
              --redirect-uri URI the redirect URI registered for the app (default http://localhost)

            \(ApplicationOptions.help)
            """,
        specification: ApplicationOptions.specification.adding(
            .init(valueOptions: ["scopes", "redirect-uri"], flagOptions: ["device-code"])),
        run: run)

    static func run(_ arguments: CommandLineArguments, _ environment: [String: String]) async throws -> ExitCode {
        let options = try ApplicationOptions(arguments, environment: environment)
        let scopes = ApplicationOptions.scopes(arguments.values["scopes"])
        let application = try options.makeApplication()
        let result: MSALResult
        if arguments.flag("device-code") {
            result = try await deviceCode(application, scopes: scopes)
        } else {
            Console.error("Opening the sign-in page in the browser; waiting for it to come back (Ctrl-C cancels)...")
            result = try await application.acquireToken(with: MSALInteractiveTokenParameters(scopes: scopes))
        }
        let account = result.account
        Console.line("Signed in as \(account.username ?? "(no user name)")")
        Console.line("  account: \(account.identifier ?? "-")")
        Console.line("  tenant: \(result.tenantProfile.tenantId ?? "-")")
        Console.line("  authority: \(result.authority.url.absoluteString)")
        if !result.scopes.isEmpty { Console.line("  scopes: \(result.scopes.joined(separator: " "))") }
        return .success
    }

    private static func deviceCode(_ application: MSALPublicClientApplication, scopes: [String]) async throws
        -> MSALResult
    {
        let progress = DeviceCodeProgress(animated: Console.standardErrorIsTerminal)
        defer { progress.stop() }
        return try await application.acquireTokenWithDeviceCode(
            parameters: MSALTokenParameters(scopes: scopes),
            deviceCodeCallback: { info in
                Console.line(info.message)
                progress.start(expiresOn: info.expiresOn)
            })
    }
}
