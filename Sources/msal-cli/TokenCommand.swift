import Foundation
import MSAL

/// `msal token`: an access token from the cache, or refreshed silently; never interactive.
enum TokenCommand {
    static let command = ToolCommand(
        name: "token", summary: "print an access token for a signed-in account (silent)",
        help: """
            usage: msal token (--scopes "a b" | --resource URI) [--account ID_OR_USERNAME] [--force-refresh]
                              [-o text|json|tsv|none] [--timeout SECONDS]
                              --client-id ID [--authority URL | --tenant T] [--cache FILE] [--ca-file PEM]

            Prints an access token for the account, from the cache or by redeeming its refresh token,
            without any interaction:

              curl -H "Authorization: Bearer $(msal token --scopes User.Read)" https://graph.microsoft.com/v1.0/me

            On failure the MSAL error goes to standard error and the exit code says what happened
            (3: sign in again with `msal login`; 4: network; 7: throttled; 124: --timeout; see
            Docs/CLI.md).

            Options:
              --scopes "a b"     scopes of the token (spaces or commas); --scope is the same
              --resource URI     the API the token is for. Entra ID, B2C and CIAM: the scope
                                 URI/.default (Azure CLI's --resource), e.g. https://management.azure.com
                                 gives https://management.azure.com/.default. AD FS and other OpenID
                                 Connect authorities: the RFC 8707 resource indicator (an absolute https
                                 URI without a fragment) sent with the refresh, beside --scopes
              --account ID_OR_USERNAME
                                 the account's identifier or user name; by default the only account
                                 signed in, or the default one (`msal accounts --set-default`)
              --force-refresh    skip the cached access token; redeem the refresh token
              -o, --output FORMAT
                                 text: the token alone (default); json: an object with Azure CLI's
                                 fields (accessToken, expiresOn, expires_on, tenant, tokenType) and
                                 access_token, token_type, scopes, account, tenant_id, authority,
                                 correlation_id; tsv: accessToken, expiresOn, expires_on, tenant,
                                 tokenType on one line; none: nothing (the exit code tells)
              --json             the same as -o json

            \(ApplicationOptions.help)
            """,
        specification: ApplicationOptions.specification.adding(OutputFormat.specification).adding(
            .init(valueOptions: ["scopes", "resource", "account"], flagOptions: ["force-refresh"])),
        run: run)

    /// The `-o json` output: Azure CLI's fields (`az account get-access-token`) and ours.
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
        /// Azure CLI's `accessToken`, `expiresOn` (local time, `2026-12-02 08:14:20.000000`),
        /// `expires_on`, `tenant` and `tokenType`.
        var azureAccessToken: String
        var azureExpiresOn: String?
        var azureTenant: String?
        var azureTokenType: String

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case tokenType = "token_type"
            case expiresOn = "expires_on"
            case scopes, account
            case tenantId = "tenant_id"
            case authority
            case correlationId = "correlation_id"
            case azureAccessToken = "accessToken"
            case azureExpiresOn = "expiresOn"
            case azureTenant = "tenant"
            case azureTokenType = "tokenType"
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
            azureAccessToken = accessToken
            azureExpiresOn = result.expiresOn.map(Self.azureTime)
            azureTenant = tenantId
            azureTokenType = tokenType
        }

        /// Azure CLI's `expiresOn`: local time, `yyyy-MM-dd HH:mm:ss.SSSSSS`.
        static func azureTime(_ date: Date) -> String {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone.current
            formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
            return formatter.string(from: date) + ".000000"
        }

        /// The fields of the `-o tsv` line.
        var tsvFields: [String] {
            [accessToken, azureExpiresOn ?? "", expiresOn.map(String.init) ?? "", tenantId ?? "", tokenType]
        }
    }

    static func run(_ arguments: CommandLineArguments, _ environment: [String: String]) async throws -> ExitCode {
        let options = try ApplicationOptions(arguments, environment: environment)
        let format = try OutputFormat(arguments)
        let target = try TokenTarget.parse(arguments, authority: options.authority, scopesRequired: true)
        let application = try options.makeApplication()
        let parameters = try silentParameters(
            application, options: options, scopes: target.scopes, account: arguments.values["account"])
        parameters.forceRefresh = arguments.flag("force-refresh")
        parameters.resourceIndicator = target.resourceIndicator
        let result = try await application.acquireTokenSilent(with: parameters)
        // The library refuses an answer without an access token (-42600); this keeps `$(msal
        // token)` from ever yielding an empty bearer token, whatever a result holds.
        guard !result.accessToken.isEmpty else {
            Console.error("msal: the identity provider returned no access token.")
            return .failure
        }
        switch format {
        case .text: Console.line(result.accessToken)
        case .json: Console.line(try Console.json(Output(result)))
        case .tsv: Console.record(Output(result).tsvFields)
        case .none: break
        }
        return .success
    }

    /// Parameters for the named account, else the only or default one. An unknown name is passed
    /// as the login hint, so the library reports it (-50002, exit 3) with a correlation id.
    static func silentParameters(
        _ application: MSALPublicClientApplication, options: ApplicationOptions, scopes: [String], account name: String?
    ) throws -> MSALSilentTokenParameters {
        if let name {
            if let account = try ApplicationOptions.account(name, in: application) {
                return MSALSilentTokenParameters(scopes: scopes, account: account)
            }
            return MSALSilentTokenParameters(scopes: scopes, loginHint: name)
        }
        return MSALSilentTokenParameters(scopes: scopes, account: try options.unnamedAccount(in: application))
    }
}
