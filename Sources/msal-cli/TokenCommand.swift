import Foundation
import MSAL

/// `msal token`: an access token from the cache, or refreshed silently; never interactive.
enum TokenCommand {
    static let command = ToolCommand(
        name: "token", summary: "print an access token for a signed-in account (silent)",
        help: """
            usage: msal token --scopes "a b" [--account ID_OR_USERNAME] [--force-refresh] [--json]
                              --client-id ID [--authority URL] [--cache FILE] [--ca-file PEM] [--verbose]

            Prints an access token for the account, from the cache or by redeeming its refresh token,
            without any interaction:

              curl -H "Authorization: Bearer $(msal token --scopes User.Read)" https://graph.microsoft.com/v1.0/me

            On failure the MSAL error goes to standard error and the exit code says what happened
            (3: sign in again with `msal login`; 4: network; 7: throttled; see Docs/CLI.md).

            Options:
              --scopes "a b"     scopes of the token (spaces or commas); required
              --account ID_OR_USERNAME
                                 the account's identifier or user name; may be left out when only
                                 one account is signed in
              --force-refresh    skip the cached access token; redeem the refresh token
              --json             print a JSON object: access_token, token_type, expires_on (Unix time),
                                 scopes, account {identifier, username, environment}, tenant_id,
                                 authority, correlation_id

            \(ApplicationOptions.help)
            """,
        specification: ApplicationOptions.specification.adding(
            .init(valueOptions: ["scopes", "account"], flagOptions: ["force-refresh", "json"])),
        run: run)

    /// The `--json` output.
    struct Output: Codable, Equatable {
        struct Account: Codable, Equatable {
            var identifier: String?
            var username: String?
            var environment: String?
        }

        var accessToken: String
        var tokenType: String
        var expiresOn: Int?
        var scopes: [String]
        var account: Account
        var tenantId: String?
        var authority: String
        var correlationId: String

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case tokenType = "token_type"
            case expiresOn = "expires_on"
            case scopes, account
            case tenantId = "tenant_id"
            case authority
            case correlationId = "correlation_id"
        }

        init(_ result: MSALResult) {
            accessToken = result.accessToken
            tokenType = result.authenticationScheme
            expiresOn = result.expiresOn.flatMap { Int(exactly: $0.timeIntervalSince1970.rounded(.down)) }
            scopes = result.scopes
            account = Account(
                identifier: result.account.identifier, username: result.account.username,
                environment: result.account.environment)
            tenantId = result.tenantProfile.tenantId
            authority = result.authority.url.absoluteString
            correlationId = result.correlationId.uuidString.lowercased()
        }
    }

    static func run(_ arguments: CommandLineArguments, _ environment: [String: String]) async throws -> ExitCode {
        let options = try ApplicationOptions(arguments, environment: environment)
        let scopes = ApplicationOptions.scopes(arguments.values["scopes"])
        guard !scopes.isEmpty else { throw CommandLineArguments.UsageError(description: "--scopes is required") }
        let application = try options.makeApplication()
        let parameters = try silentParameters(application, scopes: scopes, account: arguments.values["account"])
        parameters.forceRefresh = arguments.flag("force-refresh")
        let result = try await application.acquireTokenSilent(with: parameters)
        // The library refuses an answer without an access token (-42600); this keeps `$(msal
        // token)` from ever yielding an empty bearer token, whatever a result holds.
        guard !result.accessToken.isEmpty else {
            Console.error("msal: the identity provider returned no access token.")
            return .failure
        }
        Console.line(arguments.flag("json") ? try Console.json(Output(result)) : result.accessToken)
        return .success
    }

    /// Parameters for the named account, or the only one. An unknown name is passed as the login
    /// hint, so the library reports it (-50002, exit 3) with a correlation id.
    private static func silentParameters(
        _ application: MSALPublicClientApplication, scopes: [String], account name: String?
    ) throws -> MSALSilentTokenParameters {
        if let name {
            if let account = try ApplicationOptions.account(name, in: application) {
                return MSALSilentTokenParameters(scopes: scopes, account: account)
            }
            return MSALSilentTokenParameters(scopes: scopes, loginHint: name)
        }
        let accounts = try application.allAccounts()
        guard let only = accounts.first else {
            throw CommandFailure(
                message: "no account is signed in for this client id and cache; run `msal login` first",
                code: .interactionRequired)
        }
        guard accounts.count == 1 else {
            let names = accounts.map { $0.username ?? $0.identifier ?? "?" }.joined(separator: ", ")
            throw CommandLineArguments.UsageError(
                description: "several accounts are signed in (\(names)); choose one with --account")
        }
        return MSALSilentTokenParameters(scopes: scopes, account: only)
    }
}
