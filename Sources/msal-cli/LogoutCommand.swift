import Foundation
import MSAL

/// `msal logout`: signs an account out of the app (its tokens removed from the cache).
enum LogoutCommand {
    static let command = ToolCommand(
        name: "logout", summary: "sign an account out (remove its tokens from the cache)",
        help: """
            usage: msal logout --account ID_OR_USERNAME [--wipe] --client-id ID [--cache FILE] [--verbose]

            Signs the account out of the app: its tokens for this client id are removed and it no
            longer appears in `msal accounts`; `msal token` then needs `msal login` again. Other apps
            sharing the cache keep their tokens unless --wipe is given. The browser session is not
            ended. Fails (exit 1) when no signed-in account matches.

            Options:
              --account ID_OR_USERNAME
                                 the account's identifier or user name; required
              --wipe             remove the account and its tokens for every app sharing the cache

            \(ApplicationOptions.help)
            """,
        specification: ApplicationOptions.specification.adding(
            .init(valueOptions: ["account"], flagOptions: ["wipe"])),
        run: run)

    static func run(_ arguments: CommandLineArguments, _ environment: [String: String]) async throws -> ExitCode {
        let options = try ApplicationOptions(arguments, environment: environment)
        guard let name = arguments.values["account"] else {
            throw CommandLineArguments.UsageError(description: "--account is required")
        }
        let application = try options.makeApplication()
        guard let account = try ApplicationOptions.account(name, in: application) else {
            throw CommandFailure(message: "no signed-in account matches '\(name)'", code: .failure)
        }
        let parameters = MSALSignoutParameters()
        parameters.wipeAccount = arguments.flag("wipe")
        try await application.signout(with: account, signoutParameters: parameters)
        Console.line("Signed out \(account.username ?? name)")
        return .success
    }
}
