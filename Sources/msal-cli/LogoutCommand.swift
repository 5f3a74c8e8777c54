import Foundation
import MSAL

/// `msal logout`: signs an account out of the app (its tokens removed from the cache).
enum LogoutCommand {
    static let command = ToolCommand(
        name: "logout", summary: "sign an account out (remove its tokens from the cache)",
        help: """
            usage: msal logout [--account ID_OR_USERNAME] [--wipe] --client-id ID [--cache FILE]

            Signs the account out of the app: its tokens for this client id are removed and it no
            longer appears in `msal accounts`; `msal token` then needs `msal login` again. Other apps
            sharing the cache keep their tokens unless --wipe is given. The browser session is not
            ended. Fails (exit 1) when no signed-in account matches. Prints nothing on standard
            output; "Signed out ..." goes to standard error.

            Options:
              --account ID_OR_USERNAME
                                 the account's identifier or user name; by default the only account
                                 signed in, or the default one (`msal accounts --set-default`)
              --wipe             remove the account and its tokens for every app sharing the cache

            \(ApplicationOptions.help)
            """,
        specification: ApplicationOptions.specification.adding(
            .init(valueOptions: ["account"], flagOptions: ["wipe"])),
        run: run)

    static func run(_ arguments: CommandLineArguments, _ environment: [String: String]) async throws -> ExitCode {
        let options = try ApplicationOptions(arguments, environment: environment)
        let application = try options.makeApplication()
        let account: MSALAccount
        if let name = arguments.values["account"] {
            guard let named = try ApplicationOptions.account(name, in: application) else {
                throw CommandFailure(message: "no signed-in account matches '\(name)'", code: .failure)
            }
            account = named
        } else {
            do {
                account = try options.unnamedAccount(in: application)
            } catch let failure as CommandFailure {
                throw CommandFailure(message: failure.message, code: .failure)
            }
        }
        let parameters = MSALSignoutParameters()
        parameters.wipeAccount = arguments.flag("wipe")
        try await application.signout(with: account, signoutParameters: parameters)
        if let identifier = account.identifier,
            DefaultAccount.identifier(clientId: options.clientId, file: options.defaultsFile) == identifier
        {
            try DefaultAccount.set(nil, clientId: options.clientId, file: options.defaultsFile)
        }
        Console.error("Signed out \(account.username ?? account.identifier ?? "the account")")
        return .success
    }
}
