import Foundation
import MSAL

/// `msal accounts`: the accounts signed in to the app in the cache.
enum AccountsCommand {
    static let command = ToolCommand(
        name: "accounts", summary: "list the signed-in accounts in the cache",
        help: """
            usage: msal accounts [-o text|json|tsv|none] [--set-default ID_OR_USERNAME]
                                 --client-id ID [--cache FILE]

            Lists the accounts signed in to the app (its client id) in the cache, one per line:
            user name, environment (cloud host) and identifier, separated by two spaces, and
            "(default)" after the default account. Nothing is printed when there are none. No
            network request is made.

            The default account is the one `msal token` and `msal logout` use without --account:
            the one signed in last with `msal login`, or the one set with --set-default; with one
            account signed in, that one. It is kept in the tool's file msal_cli_defaults.json beside
            the cache file (the cache file itself is shared with other apps and left as it is).

            Options:
              --set-default ID_OR_USERNAME
                                 make that signed-in account the default (prints nothing)
              -o, --output FORMAT
                                 text (default); json: an array of {identifier, username,
                                 environment, is_default, tenant_profiles: [{tenant_id, identifier,
                                 is_home_tenant}]}; tsv: username, environment, identifier and
                                 true/false (default) per line; none
              --json             the same as -o json

            \(ApplicationOptions.help)
            """,
        specification: ApplicationOptions.specification.adding(OutputFormat.specification).adding(
            .init(valueOptions: ["set-default"], flagOptions: [])),
        run: run)

    /// One account of the `--json` output.
    struct Output: Codable, Equatable {
        struct TenantProfile: Codable, Equatable {
            var tenantId: String?
            var identifier: String?
            var isHomeTenant: Bool

            enum CodingKeys: String, CodingKey {
                case tenantId = "tenant_id"
                case identifier
                case isHomeTenant = "is_home_tenant"
            }
        }

        var identifier: String?
        var username: String?
        var environment: String?
        var isDefault: Bool
        var tenantProfiles: [TenantProfile]

        enum CodingKeys: String, CodingKey {
            case identifier, username, environment
            case isDefault = "is_default"
            case tenantProfiles = "tenant_profiles"
        }

        init(_ account: MSALAccount, isDefault: Bool) {
            self.isDefault = isDefault
            identifier = account.identifier
            username = account.username
            environment = account.environment
            tenantProfiles = (account.tenantProfiles ?? []).map {
                TenantProfile(tenantId: $0.tenantId, identifier: $0.identifier, isHomeTenant: $0.isHomeTenantProfile)
            }
        }
    }

    static func run(_ arguments: CommandLineArguments, _ environment: [String: String]) async throws -> ExitCode {
        let options = try ApplicationOptions(arguments, environment: environment)
        let format = try OutputFormat(arguments)
        let application = try options.makeApplication()
        if let name = arguments.values["set-default"] {
            guard let account = try ApplicationOptions.account(name, in: application),
                let identifier = account.identifier
            else {
                throw CommandFailure(message: "no signed-in account matches '\(name)'", code: .failure)
            }
            try DefaultAccount.set(identifier, clientId: options.clientId, file: options.defaultsFile)
            Console.error("Default account: \(account.username ?? identifier)")
            return .success
        }
        // With the broker, the accounts it knows for this app too (MSAL for iOS's accountsFromDevice).
        let accounts =
            options.broker
            ? try await application.accountsFromDevice(
                for: MSALAccountEnumerationParameters(identifier: nil, username: nil))
            : try application.allAccounts()
        let chosen = DefaultAccount.choose(accounts) {
            DefaultAccount.identifier(clientId: options.clientId, file: options.defaultsFile)
        }
        let outputs = accounts.map { Output($0, isDefault: chosen != nil && $0.identifier == chosen?.identifier) }
        switch format {
        case .json:
            Console.line(try Console.json(outputs))
        case .tsv:
            for output in outputs {
                Console.record([
                    output.username ?? "", output.environment ?? "", output.identifier ?? "", String(output.isDefault),
                ])
            }
        case .text:
            for output in outputs {
                let fields = [output.username ?? "-", output.environment ?? "-", output.identifier ?? "-"]
                Console.line(fields.joined(separator: "  ") + (output.isDefault ? "  (default)" : ""))
            }
        case .none: break
        }
        return .success
    }
}
