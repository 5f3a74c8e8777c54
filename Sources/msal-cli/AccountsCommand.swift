import Foundation
import MSAL

/// `msal accounts`: the accounts signed in to the app in the cache.
enum AccountsCommand {
    static let command = ToolCommand(
        name: "accounts", summary: "list the signed-in accounts in the cache",
        help: """
            usage: msal accounts [--json] --client-id ID [--cache FILE] [--verbose]

            Lists the accounts signed in to the app (its client id) in the cache, one per line:
            user name, environment (cloud host) and identifier. Nothing is printed when there are
            none. No network request is made.

            Options:
              --json             print a JSON array of {identifier, username, environment,
                                 tenant_profiles: [{tenant_id, identifier, is_home_tenant}]}

            \(ApplicationOptions.help)
            """,
        specification: ApplicationOptions.specification.adding(.init(valueOptions: [], flagOptions: ["json"])),
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
        var tenantProfiles: [TenantProfile]

        enum CodingKeys: String, CodingKey {
            case identifier, username, environment
            case tenantProfiles = "tenant_profiles"
        }

        init(_ account: MSALAccount) {
            identifier = account.identifier
            username = account.username
            environment = account.environment
            tenantProfiles = (account.tenantProfiles ?? []).map {
                TenantProfile(tenantId: $0.tenantId, identifier: $0.identifier, isHomeTenant: $0.isHomeTenantProfile)
            }
        }
    }

    static func run(_ arguments: CommandLineArguments, _ environment: [String: String]) async throws -> ExitCode {
        let application = try ApplicationOptions(arguments, environment: environment).makeApplication()
        let accounts = try application.allAccounts()
        if arguments.flag("json") {
            Console.line(try Console.json(accounts.map(Output.init)))
        } else {
            for account in accounts {
                Console.line(
                    [account.username ?? "-", account.environment ?? "-", account.identifier ?? "-"].joined(
                        separator: "  "))
            }
        }
        return .success
    }
}
