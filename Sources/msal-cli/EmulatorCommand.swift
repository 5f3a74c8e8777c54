import Foundation
import MSAL
import MSALTestSupport

/// `msal emulator`: the Entra emulator of `MSALTestSupport`, standalone, until SIGINT or SIGTERM,
/// with the app registration, users and control endpoint a test outside Swift needs.
enum EmulatorCommand {
    static let command = ToolCommand(
        name: "emulator", summary: "run the Entra ID emulator on loopback HTTPS until Ctrl-C",
        help: """
            usage: msal emulator [--port N] [--client-id ID] [--redirect-uri URI[,URI...]]
                                 [--scopes "SCOPE ..."] [--user NAME[,NAME...]] [--env-file PATH]
                                 [--device-code-interval SECONDS] [--require-consent]
                                 [--approve-device-codes] [--access-token-lifetime SECONDS]
                                 [--refresh-token-lifetime SECONDS] [--broker]

            Runs the Microsoft Entra ID emulator (MSALTestSupport's EntraEmulator) on 127.0.0.1 over
            HTTPS with its own throwaway certificate authority, and prints its authorities, the CA
            file, the app, the host mapping and an environment block that points `msal` (or any
            client) at it, including MSAL_CACHE: a cache file in a folder of the emulator's own
            (kept in plaintext, MSAL_CACHE_BACKEND=plaintext), so sign-ins made against it never
            touch your real cache or key stores. Stops on Ctrl-C (SIGINT) or SIGTERM, exit code 0;
            the CA file, that folder and the environment file are then removed.

            The sign-in page redirects at once (the default user signs in unless a login hint names
            another user). A control endpoint on the same port (https://127.0.0.1:PORT/.emulator/,
            with the bearer token of MSAL_EMULATOR_CONTROL_TOKEN) approves or declines device codes,
            advances the clock and injects faults: see Docs/Testing.md.

            Options:
              --port N                  the port (default: a free one)
              --client-id ID            register this app (default: the sample app's id)
              --redirect-uri URIS       its redirect URIs, comma-separated (default: http://localhost,
                                        any port)
              --scopes SCOPES           the API permissions it may ask for, space- or comma-separated
                                        (default: User.Read Mail.Read); others get invalid_scope
              --user NAMES              users, comma-separated (added to Contoso when new); the first
                                        signs in by default
              --env-file PATH           write the environment block there once listening, as
                                        `export NAME='value'` lines (`. PATH` in a shell)
              --device-code-interval S  the device-code polling interval in seconds (default 1)
              --require-consent         refresh tokens need consent (consent_required, AADSTS65001)
              --access-token-lifetime S access tokens expire after S seconds (default 3599), to show
                                        an app's refresh after expiry
              --refresh-token-lifetime S refresh tokens expire after S seconds unused (default 90
                                        days): past it, a refresh gets invalid_grant (-50002 in
                                        MSAL, interaction required)
              --approve-device-codes    approve every device code as the default user about a second
                                        after it is issued, so `msal login --device-code` completes
              --broker                  also run an emulated Linux broker on a private D-Bus bus of
                                        its own (dbus-daemon), minting tokens from this emulator, and
                                        add MSAL_BROKER=1 and MSAL_BROKER_BUS to the environment block
            """,
        specification: .init(
            valueOptions: [
                "port", "client-id", "redirect-uri", "scopes", "user", "env-file", "device-code-interval",
                "access-token-lifetime", "refresh-token-lifetime",
            ],
            flagOptions: ["approve-device-codes", "require-consent", "broker"]),
        cancelsOnInterrupt: false, run: run)

    static func run(_ arguments: CommandLineArguments, _ environment: [String: String]) async throws -> ExitCode {
        var configuration = EntraEmulator.Configuration()
        if let port = try arguments.integer("port", in: 0...65535) { configuration.port = port }
        configuration.deviceCodeInterval = try arguments.integer("device-code-interval", in: 0...60) ?? 1
        configuration.requiresConsent = arguments.flag("require-consent")
        if let seconds = try arguments.integer("access-token-lifetime", in: 1...86_400) {
            configuration.lifetimes.accessToken = seconds
            configuration.lifetimes.extendedAccessToken = seconds
        }
        if let seconds = try arguments.integer("refresh-token-lifetime", in: 1...(366 * 86_400)) {
            configuration.lifetimes.refreshToken = seconds
        }
        let client = try registration(arguments)
        configuration.clients.removeAll { $0.clientId.lowercased() == client.clientId.lowercased() }
        configuration.clients.insert(client, at: 0)
        if let text = arguments.values["user"] {
            let usernames = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            for username in usernames {
                guard username.contains("@"), !username.contains(where: { $0.isWhitespace || $0.isNewline }) else {
                    throw CommandLineArguments.UsageError(
                        description: "--user '\(username)' is not a user name (name@domain)")
                }
                if !configuration.users.contains(where: { $0.username.lowercased() == username.lowercased() }) {
                    configuration.users.append(
                        EmulatorUser(
                            username: username, displayName: username, objectId: UUID().uuidString,
                            homeTenantId: EmulatorTenant.contoso.id))
                }
            }
            configuration.defaultUsername = usernames.first
        }
        let token = try SecureToken.make()
        configuration.controlToken = token
        let signals = SignalWaiter([SIGINT, SIGTERM])
        let emulator = try EntraEmulator(configuration: configuration)
        let cacheFolder = try makeCacheFolder()
        defer { try? FileManager.default.removeItem(at: cacheFolder) }
        var variables =
            environmentVariables(emulator, client: client, controlToken: token)
            + [
                ("MSAL_CACHE", cacheFolder.appendingPathComponent("msal_cache.json").path),
                ("MSAL_CACHE_BACKEND", "plaintext"),
            ]
        // The emulated broker and its bus, stopped (the bus by its process id) before returning.
        var broker: (bus: PrivateDBus, broker: EmulatedBroker)?
        if arguments.flag("broker") {
            let bus = try PrivateDBus()
            do {
                broker = (bus, try EmulatedBroker(emulator: emulator, busAddress: bus.address))
            } catch {
                bus.stop()
                throw error
            }
            variables += [("MSAL_BROKER", "1"), ("MSAL_BROKER_BUS", bus.address)]
        }
        defer {
            broker?.broker.stop()
            broker?.bus.stop()
        }
        let envFile = arguments.values["env-file"]
        if let envFile { try write(variables, to: envFile) }
        Console.line(emulator.summary)
        Console.line(details(emulator, client: client, variables: variables))
        let approver = arguments.flag("approve-device-codes") ? approveDeviceCodes(emulator) : nil
        Console.error("Press Ctrl-C to stop.")
        await signals.wait()
        approver?.cancel()
        await approver?.value  // it holds the emulator: release it here, before the process exits
        emulator.stop()
        if let envFile { try? FileManager.default.removeItem(atPath: envFile) }
        Console.error("Emulator stopped.")
        return .success
    }

    /// The app registration the options describe.
    static func registration(_ arguments: CommandLineArguments) throws(CommandLineArguments.UsageError)
        -> EmulatorClient
    {
        let clientId = arguments.values["client-id"] ?? EmulatorClient.sample.clientId
        guard !clientId.isEmpty, clientId.allSatisfy({ $0.isLetter || $0.isNumber || "-._".contains($0) }) else {
            throw CommandLineArguments.UsageError(description: "--client-id '\(clientId)' is not a client id")
        }
        let redirectURIs =
            arguments.values["redirect-uri"].map { $0.split(separator: ",").map(String.init) }
            ?? EmulatorClient.sample.redirectURIs
        for uri in redirectURIs where URL(string: uri)?.scheme == nil {
            throw CommandLineArguments.UsageError(description: "--redirect-uri '\(uri)' is not a URI")
        }
        var permissions = EmulatorClient.sample.permissions
        if let text = arguments.values["scopes"] {
            permissions = [:]
            for scope in text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init) {
                let (resource, name) = resourceAndName(scope)
                permissions[resource, default: []].append(name)
            }
            guard !permissions.isEmpty else {
                throw CommandLineArguments.UsageError(description: "--scopes needs at least one scope")
            }
        }
        return EmulatorClient(clientId: clientId, redirectURIs: redirectURIs, permissions: permissions)
    }

    /// `User.Read` is Microsoft Graph's; `api://app/read` is `read` of `api://app`.
    private static func resourceAndName(_ scope: String) -> (String, String) {
        guard scope.contains("://"), let slash = scope.lastIndex(of: "/") else { return (EmulatorClient.graph, scope) }
        return (String(scope[..<slash]), String(scope[scope.index(after: slash)...]))
    }

    /// A folder of this emulator's own for the cache of the sign-ins made against it (mode 0700).
    private static func makeCacheFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("msal-emulator-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        return folder
    }

    /// The variables that point a client at the emulator, in order.
    static func environmentVariables(_ emulator: EntraEmulator, client: EmulatorClient, controlToken: String)
        -> [(String, String)]
    {
        [
            ("MSAL_CLIENT_ID", client.clientId),
            ("MSAL_CA_FILE", emulator.certificateAuthority.certificateFile),
            ("MSAL_CONNECT_TO", emulator.connectTo.joined(separator: ",")),
            ("MSAL_EMULATOR_URL", emulator.baseURL.absoluteString),
            ("MSAL_EMULATOR_AUTHORITY", emulator.authority(tenant: "common").absoluteString),
            ("MSAL_EMULATOR_CONTROL_TOKEN", controlToken),
        ]
    }

    /// `export NAME='value'` lines, each value quoted for a POSIX shell.
    static func shellExports(_ variables: [(String, String)]) -> String {
        variables.map { "export \($0.0)='\($0.1.replacingOccurrences(of: "'", with: "'\\''"))'" }
            .joined(separator: "\n") + "\n"
    }

    /// Writes the environment file whole (a reader never sees half of it), readable by its owner.
    private static func write(_ variables: [(String, String)], to path: String) throws {
        let temporary = path + ".tmp-\(ProcessInfo.processInfo.processIdentifier)"
        guard
            FileManager.default.createFile(
                atPath: temporary, contents: Data(shellExports(variables).utf8), attributes: [.posixPermissions: 0o600])
        else {
            throw CommandLineArguments.UsageError(description: "--env-file '\(path)' cannot be written")
        }
        if FileManager.default.fileExists(atPath: path) {
            _ = try FileManager.default.replaceItemAt(
                URL(fileURLWithPath: path), withItemAt: URL(fileURLWithPath: temporary))
        } else {
            try FileManager.default.moveItem(atPath: temporary, toPath: path)
        }
    }

    /// The app, the users and the environment block.
    static func details(_ emulator: EntraEmulator, client: EmulatorClient, variables: [(String, String)]) -> String {
        let users = emulator.users.map(\.username).joined(separator: ", ")
        let scopes = client.permissions.sorted { $0.key < $1.key }.flatMap { resource, names in
            names.map { resource == EmulatorClient.graph ? $0 : "\(resource)/\($0)" }
        }
        return """
            App: client id \(client.clientId) (redirect URIs \(client.redirectURIs.joined(separator: ", ")); \
            scopes \(scopes.joined(separator: " ")))
            Users: \(users); default \(emulator.defaultUsername ?? "-")
            Point msal at it (the cloud host names are sent to 127.0.0.1:\(emulator.port)):
            \(shellExports(variables))export MSAL_CACHE=$(mktemp -d)/msal_cache.json
            """
    }

    /// Approves each new device code as the default user, a second after it appears.
    private static func approveDeviceCodes(_ emulator: EntraEmulator) -> Task<Void, Never> {
        Task.detached {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                for code in emulator.pendingUserCodes where !Task.isCancelled {
                    if let user = emulator.defaultUsername,
                        (try? emulator.approveDeviceCode(userCode: code, as: user)) != nil
                    {
                        Console.error("Approved device code \(code) as \(user).")
                    }
                }
            }
        }
    }
}

/// A random token for the control endpoint: 32 bytes, hex.
private enum SecureToken {
    static func make() throws -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}
