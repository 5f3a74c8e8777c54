import Foundation
import MSAL

/// The options every account command shares (`--client-id`, `--authority`, `--cache`,
/// `--ca-file`), with their environment variables, and the application they configure.
struct ApplicationOptions {
    /// The options, for a command's specification (`--verbose` is handled by the tool).
    static let specification = CommandLineArguments.Specification(
        valueOptions: ["client-id", "authority", "cache", "ca-file"], flagOptions: ["verbose"])

    /// The help lines of the shared options.
    static let help = """
        Common options (and environment variables):
          --client-id ID     application (client) id of the app registration (MSAL_CLIENT_ID); required
          --authority URL    authority, default https://login.microsoftonline.com/common (MSAL_AUTHORITY);
                             B2C, CIAM and OIDC authorities are trusted as known authorities
          --cache FILE       token cache file (MSAL_CACHE); default
                             $XDG_DATA_HOME/msal/com.microsoft.identity.universalstorage/msal_cache.json
          --ca-file PEM      certificate authorities to trust instead of the system's (MSAL_CA_FILE)
          --verbose          MSAL's log on standard error (personal data masked)
          --help             this help
          MSAL_CONNECT_TO    (environment only) comma-separated HOST:PORT:HOST:PORT entries sending
                             requests for a host elsewhere (curl's CONNECT_TO), e.g. to `msal emulator`
        """

    var clientId: String
    var authority: MSALAuthority?
    var redirectUri: String?
    var cacheFile: String?
    var caFile: String?
    var connectTo: [String]

    /// Reads the options from `arguments`, then the environment.
    init(_ arguments: CommandLineArguments, environment: [String: String]) throws(CommandLineArguments.UsageError) {
        typealias UsageError = CommandLineArguments.UsageError
        guard let clientId = arguments.value("client-id", environment: environment, variable: "MSAL_CLIENT_ID") else {
            throw UsageError(description: "--client-id is required (or set MSAL_CLIENT_ID)")
        }
        self.clientId = clientId
        if let text = arguments.value("authority", environment: environment, variable: "MSAL_AUTHORITY") {
            guard let url = URL(string: text), url.scheme != nil else {
                throw UsageError(description: "--authority '\(text)' is not a URL")
            }
            do {
                authority = try MSALAuthority.authority(with: url)
            } catch {
                let reason = MSALErrorInfo(error).errorDescription ?? "not a usable authority"
                throw UsageError(description: "--authority '\(text)': \(reason)")
            }
        }
        redirectUri = arguments.values["redirect-uri"]
        cacheFile = arguments.value("cache", environment: environment, variable: "MSAL_CACHE")
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
        if let authority, !(authority is MSALAADAuthority) {
            config.knownAuthorities = [authority]
        }
        config.certificateAuthorityFile = caFile
        if let cacheFile {
            config.cacheConfig.cacheFileURL = URL(fileURLWithPath: cacheFile)
        }
        config.connectTo = connectTo
        let application = try MSALPublicClientApplication(configuration: config)
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
