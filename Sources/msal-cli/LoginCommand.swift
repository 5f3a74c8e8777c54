import Foundation
import MSAL
import MSALBroker

/// `msal login`: an interactive sign-in in the system browser (loopback redirect), or the device
/// code flow.
enum LoginCommand {
    static let command = ToolCommand(
        name: "login", summary: "sign in (system browser, or --device-code) and cache the account",
        help: """
            usage: msal login [--device-code] [--scopes "a b"] [--resource URI] [--redirect-uri URI]
                              [-o text|json|tsv|none]
                              [--timeout SECONDS] --client-id ID [--authority URL | --tenant T]
                              [--cache FILE] [--ca-file PEM]

            Signs in, caches the account and its tokens, and makes it the default account. Prints the
            account on standard output; messages and the device code go to standard error.

            Without --device-code the system browser opens the sign-in page ($BROWSER, else xdg-open)
            and the redirect comes back to a listener on http://localhost:<free port> (or the port of
            --redirect-uri). The browser gets 10 minutes. With --device-code, the code and the page to
            enter it on are printed on standard error; sign in on any device. Ctrl-C or SIGTERM
            cancels (exit 130 or 143).

            Options:
              --device-code      use the device code flow (no browser on this machine)
              --scopes "a b"     scopes to consent to (spaces or commas), e.g. "User.Read"; default none
                                 (sign-in only). openid, profile and offline_access are always asked.
              --resource URI     the API the tokens are for. Entra ID, B2C and CIAM: consent to the scope
                                 URI/.default. AD FS and other OpenID Connect authorities: the RFC 8707
                                 resource indicator (an absolute https URI without a fragment), sent on
                                 the sign-in and token requests beside --scopes; pass it to `msal token`
                                 too, so that refreshes name the same resource
              --redirect-uri URI the redirect URI registered for the app (default http://localhost)
              -o, --output FORMAT
                                 text (default): lines "Signed in as", account, tenant, authority,
                                 scopes; json: {username, identifier, environment, tenant_id,
                                 authority, scopes}; tsv: username, identifier, tenant id; none

            \(ApplicationOptions.help)
            """,
        specification: ApplicationOptions.specification.adding(OutputFormat.specification).adding(
            .init(valueOptions: ["scopes", "resource", "redirect-uri"], flagOptions: ["device-code"])),
        run: run)

    /// The `-o json` output.
    struct Output: Codable, Equatable {
        var username: String?
        var identifier: String?
        var environment: String?
        var tenantId: String?
        var authority: String
        var scopes: [String]

        enum CodingKeys: String, CodingKey {
            case username, identifier, environment
            case tenantId = "tenant_id"
            case authority, scopes
        }
    }

    static func run(_ arguments: CommandLineArguments, _ environment: [String: String]) async throws -> ExitCode {
        let options = try ApplicationOptions(arguments, environment: environment)
        let format = try OutputFormat(arguments)
        let target = try TokenTarget.parse(arguments, authority: options.authority, scopesRequired: false)
        let application = try options.makeApplication()
        let result: MSALResult
        if arguments.flag("device-code") {
            result = try await deviceCode(application, target: target, environment: environment)
        } else if options.broker, (try? await MSALLinuxBroker(busAddress: options.brokerBus).version()) != nil {
            // The broker shows its own sign-in window: no browser is needed here.
            Console.error("Signing in through the broker (Ctrl-C cancels)...")
            result = try await application.acquireToken(with: BrowserSignIn.parameters(target))
        } else {
            result = try await BrowserSignIn.run(application, target: target, environment: environment)
        }
        let account = result.account
        if let identifier = account.identifier {
            try DefaultAccount.set(identifier, clientId: options.clientId, file: options.defaultsFile)
        }
        let output = Output(
            username: account.username, identifier: account.identifier, environment: account.environment,
            tenantId: result.tenantProfile.tenantId, authority: result.authority.url.absoluteString,
            scopes: result.scopes)
        switch format {
        case .text:
            Console.line("Signed in as \(account.username ?? "(no user name)")")
            Console.line("  account: \(account.identifier ?? "-")")
            Console.line("  tenant: \(result.tenantProfile.tenantId ?? "-")")
            Console.line("  authority: \(result.authority.url.absoluteString)")
            if !result.scopes.isEmpty { Console.line("  scopes: \(result.scopes.joined(separator: " "))") }
        case .json: Console.line(try Console.json(output))
        case .tsv: Console.record([output.username ?? "", output.identifier ?? "", output.tenantId ?? ""])
        case .none: break
        }
        return .success
    }

    private static func deviceCode(
        _ application: MSALPublicClientApplication, target: TokenTarget, environment: [String: String]
    ) async throws -> MSALResult {
        let progress = DeviceCodeProgress(
            animated: DeviceCodeProgress.animates(
                standardErrorIsTerminal: Console.standardErrorIsTerminal, term: environment["TERM"]))
        defer { progress.stop() }
        let parameters = MSALTokenParameters(scopes: target.scopes)
        parameters.resourceIndicator = target.resourceIndicator
        return try await application.acquireTokenWithDeviceCode(
            parameters: parameters,
            deviceCodeCallback: { info in
                Console.error(info.message)
                progress.start(expiresOn: info.expiresOn)
            })
    }
}
