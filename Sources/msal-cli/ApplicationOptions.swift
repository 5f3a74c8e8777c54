import Foundation
import MSAL
import MSALBroker

/// The options every account command shares (`--client-id`, `--authority`, `--cache`,
/// `--ca-file`), with their environment variables, and the application they configure.
struct ApplicationOptions {
    /// The options, for a command's specification (`--verbose` is handled by the tool).
    static let specification = CommandLineArguments.Specification(
        valueOptions: ["client-id", "authority", "tenant", "known-authority", "cache", "cache-backend", "ca-file"],
        flagOptions: ["verbose", "no-instance-discovery", "broker"])

    /// The help lines of the shared options.
    static let help = """
        Common options (and environment variables):
          --client-id ID     application (client) id of the app registration (MSAL_CLIENT_ID); required
          --authority URL    authority, default https://login.microsoftonline.com/common (MSAL_AUTHORITY);
                             B2C, CIAM and OIDC authorities are trusted as known authorities
          --tenant T         the tenant (id or domain) in the Entra authority instead of its own
                             (https://login.microsoftonline.com/T) (MSAL_TENANT)
          --known-authority URL
                             an authority to trust without validation (knownAuthorities); repeatable
                             (MSAL_KNOWN_AUTHORITIES, separated by spaces or commas)
          --no-instance-discovery
                             trust the authority's host: no validation at login.microsoftonline.com;
                             the host's own discovery answer is used when it gives one
                             (MSAL_INSTANCE_DISCOVERY=off)
          --cache FILE       token cache file (MSAL_CACHE); default
                             $XDG_DATA_HOME/msal/com.microsoft.identity.universalstorage/msal_cache.json
          --cache-backend B  where the cache's key is kept: secret-service (the desktop keyring),
                             kernel-keyring (the user's kernel keyring), systemd-credential (the
                             service's credential msal-cache-key) or plaintext (the file alone, no
                             warning); default: the first that works here in that order, else the
                             plaintext file with a warning shown once (MSAL_CACHE_BACKEND)
          --ca-file PEM      certificate authorities to trust instead of the system's (MSAL_CA_FILE)
          --broker           sign in and get tokens through the Microsoft identity broker of this
                             desktop (Entra ID authorities; the tool's own flows when none answers);
                             `accounts` then lists the broker's accounts too
                             (MSAL_BROKER=1; MSAL_BROKER_BUS: a D-Bus address instead of the
                             session bus, e.g. that of `msal emulator --broker`)
          --verbose          MSAL's log on standard error (personal data masked)
          --help             this help
          MSAL_CONNECT_TO    (environment only) comma-separated HOST:PORT:HOST:PORT entries sending
                             requests for a host elsewhere (curl's CONNECT_TO), e.g. to `msal emulator`
        """

    var clientId: String
    var authority: MSALAuthority?
    /// Authorities trusted without validation (`knownAuthorities`), besides B2C, CIAM and OIDC
    /// authorities given with `--authority`.
    var knownAuthorities: [MSALAuthority] = []
    var redirectUri: String?
    var cacheFile: String?
    /// The tool's file of default accounts, beside the cache file (see ``DefaultAccount``).
    var defaultsFile: URL
    var caFile: String?
    var connectTo: [String]
    /// `--cache-backend`: `nil` lets the tool choose (``CacheBackendDecision``).
    var cacheBackend: CacheBackend?
    /// `--broker` (or `MSAL_BROKER=1`): through the broker.
    var broker = false
    /// `MSAL_BROKER_BUS`: the broker's bus, `nil` for the session bus.
    var brokerBus: String?
    /// The environment, for the cache backend's probes (`CREDENTIALS_DIRECTORY`).
    var environment: [String: String]

    /// Reads the options from `arguments`, then the environment.
    init(_ arguments: CommandLineArguments, environment: [String: String]) throws(CommandLineArguments.UsageError) {
        typealias UsageError = CommandLineArguments.UsageError
        guard let clientId = arguments.value("client-id", environment: environment, variable: "MSAL_CLIENT_ID") else {
            throw UsageError(description: "--client-id is required (or set MSAL_CLIENT_ID)")
        }
        self.clientId = clientId
        if let text = arguments.value("authority", environment: environment, variable: "MSAL_AUTHORITY") {
            authority = try Self.authority(text, option: "--authority")
        }
        if let tenant = arguments.value("tenant", environment: environment, variable: "MSAL_TENANT") {
            authority = try Self.authority(Self.tenantAuthority(tenant, in: authority), option: "--tenant")
        }
        let known =
            arguments.allValues["known-authority"]
            ?? Self.words(environment["MSAL_KNOWN_AUTHORITIES"] ?? "")
        for text in known {
            knownAuthorities.append(try Self.authority(text, option: "--known-authority"))
        }
        if arguments.flag("no-instance-discovery") || Self.isOff(environment["MSAL_INSTANCE_DISCOVERY"]) {
            if let authority {
                knownAuthorities.append(authority)
            } else {
                let url = MSALPublicClientApplicationConfig.defaultAuthorityURL.absoluteString
                knownAuthorities.append(try Self.authority(url, option: "--authority"))
            }
        }
        redirectUri = arguments.values["redirect-uri"]
        cacheFile = arguments.value("cache", environment: environment, variable: "MSAL_CACHE")
        defaultsFile = DefaultAccount.file(cacheFile: cacheFile, environment: environment)
        self.environment = environment
        if let text = arguments.value("cache-backend", environment: environment, variable: "MSAL_CACHE_BACKEND") {
            guard let backend = CacheBackend(rawValue: text) else {
                throw UsageError(
                    description: "--cache-backend '\(text)' is not one of "
                        + CacheBackend.allCases.map(\.rawValue).joined(separator: ", "))
            }
            cacheBackend = backend
        }
        broker = arguments.flag("broker") || environment["MSAL_BROKER"] == "1"
        brokerBus = environment["MSAL_BROKER_BUS"].flatMap { $0.isEmpty ? nil : $0 }
        caFile = arguments.value("ca-file", environment: environment, variable: "MSAL_CA_FILE")
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw UsageError(description: "--ca-file '\(caFile)' cannot be read")
        }
        connectTo = (environment["MSAL_CONNECT_TO"] ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        for entry in connectTo where entry.split(separator: ":", omittingEmptySubsequences: false).count < 4 {
            throw UsageError(description: "MSAL_CONNECT_TO entry '\(entry)' is not HOST:PORT:HOST:PORT")
        }
    }

    /// The application these options describe, with its own `connectTo` routing.
    func makeApplication() throws -> MSALPublicClientApplication {
        let config = MSALPublicClientApplicationConfig(
            clientId: clientId, redirectUri: redirectUri, authority: authority)
        var known = knownAuthorities
        if let authority, !(authority is MSALAADAuthority) {
            known.insert(authority, at: 0)
        }
        config.knownAuthorities = known
        config.certificateAuthorityFile = caFile
        if let cacheFile {
            config.cacheConfig.cacheFileURL = URL(fileURLWithPath: cacheFile)
        }
        config.connectTo = connectTo
        if broker {
            config.brokerAvailability = .auto
            config.brokerConnection = MSALLinuxBroker(busAddress: brokerBus)
        }
        var chosen = try CacheBackendSelection.apply(
            to: config, requested: cacheBackend, defaultsFile: defaultsFile, environment: environment)
        let application: MSALPublicClientApplication
        do {
            application = try MSALPublicClientApplication(configuration: config)
        } catch  where chosen.unprobed {
            // The store that held the key, used without a probe, did not give it: decide again,
            // probing it first, so that the message says why and what to do.
            chosen = try CacheBackendSelection.apply(
                to: config, requested: cacheBackend, defaultsFile: defaultsFile, environment: environment,
                keyHolderFailed: true)
            application = try MSALPublicClientApplication(configuration: config)
        }
        chosen.confirm()
        CacheNotices.track(application)
        return application
    }

    /// The account named `identifierOrUsername`: by identifier first, then by user name.
    static func account(_ identifierOrUsername: String, in application: MSALPublicClientApplication) throws
        -> MSALAccount?
    {
        if let account = try application.account(forIdentifier: identifierOrUsername) { return account }
        return try application.account(forUsername: identifierOrUsername)
    }

    /// The account a command uses when no `--account` is given: the only one signed in, else the
    /// default one (``DefaultAccount``).
    ///
    /// - Throws: exit code 3 when none is signed in; a usage error when several are and none of
    ///   them is the default.
    func unnamedAccount(in application: MSALPublicClientApplication) throws -> MSALAccount {
        let accounts = try application.allAccounts()
        guard !accounts.isEmpty else {
            throw CommandFailure(
                message: "no account is signed in for this client id and cache; run `msal login` first",
                code: .interactionRequired)
        }
        let chosen = DefaultAccount.choose(accounts) {
            DefaultAccount.identifier(clientId: clientId, file: defaultsFile)
        }
        guard let chosen else {
            let names = accounts.map { $0.username ?? $0.identifier ?? "?" }.joined(separator: ", ")
            throw CommandLineArguments.UsageError(
                description: "several accounts are signed in (\(names)) and none is the default; choose one with "
                    + "--account, or set the default with `msal accounts --set-default ID_OR_USERNAME`")
        }
        return chosen
    }

    /// The authority of `text`, or a usage error naming `option`.
    static func authority(_ text: String, option: String) throws(CommandLineArguments.UsageError) -> MSALAuthority {
        guard let url = URL(string: text), url.scheme != nil, url.host != nil else {
            throw CommandLineArguments.UsageError(description: "\(option) '\(text)' is not a URL")
        }
        do {
            return try MSALAuthority.authority(with: url)
        } catch {
            let reason = MSALErrorInfo(error).errorDescription ?? "not a usable authority"
            throw CommandLineArguments.UsageError(description: "\(option) '\(text)': \(reason)")
        }
    }

    /// The URL of the Entra authority of `authority` (the public cloud's when `nil`) with `tenant`
    /// as its tenant: `https://<host>/<tenant>`. Other kinds of authority name their tenant in
    /// their own way, so `--tenant` refuses them.
    static func tenantAuthority(_ tenant: String, in authority: MSALAuthority?) throws(CommandLineArguments.UsageError)
        -> String
    {
        let base = authority?.url ?? MSALPublicClientApplicationConfig.defaultAuthorityURL
        guard authority == nil || authority is MSALAADAuthority else {
            throw CommandLineArguments.UsageError(
                description: "--tenant applies to Entra ID authorities only; put the tenant in --authority")
        }
        let allowed = { (scalar: Unicode.Scalar) in
            scalar.isASCII
                && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                    || "-._".unicodeScalars.contains(scalar))
        }
        guard !tenant.isEmpty, tenant.unicodeScalars.allSatisfy(allowed) else {
            throw CommandLineArguments.UsageError(
                description: "--tenant '\(tenant)' is not a tenant id or domain (such as contoso.onmicrosoft.com)")
        }
        var components = URLComponents()
        components.scheme = base.scheme
        components.host = base.host
        components.port = base.port
        return (components.url?.absoluteString ?? "https://login.microsoftonline.com") + "/" + tenant
    }

    /// Whether an environment variable says "off" (`0`, `false`, `off`, `no`).
    static func isOff(_ value: String?) -> Bool {
        ["0", "false", "off", "no"].contains(value?.lowercased() ?? "")
    }

    /// The words of `text`, separated by spaces or commas.
    static func words(_ text: String) -> [String] {
        text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
    }

    /// The scopes of `--scopes "a b"` (spaces or commas).
    static func scopes(_ text: String?) -> [String] {
        (text ?? "").split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
    }
}

/// A failure the tool itself reports: a message for standard error and the exit code.
struct CommandFailure: Error {
    let message: String
    let code: ExitCode
}
