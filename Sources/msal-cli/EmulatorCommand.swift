import Foundation
import MSAL
import MSALTestSupport

/// `msal emulator`: the Entra emulator of `MSALTestSupport`, standalone, until SIGINT or SIGTERM.
enum EmulatorCommand {
    static let command = ToolCommand(
        name: "emulator", summary: "run the Entra ID emulator on loopback HTTPS until Ctrl-C",
        help: """
            usage: msal emulator [--port N] [--approve-device-codes]

            Runs the Microsoft Entra ID emulator (MSALTestSupport's EntraEmulator) on 127.0.0.1 over
            HTTPS with its own throwaway certificate authority, and prints its authorities, the CA
            file, a sample client id, the host mapping and an environment block that points `msal` at
            it. Stops on Ctrl-C (SIGINT) or SIGTERM, exit code 0; the CA file is then removed.

            The sign-in page redirects at once (Alice signs in unless a login hint names another user).

            Options:
              --port N                 the port (default: a free one)
              --approve-device-codes   approve every device code as the default user (Alice) about a
                                       second after it is issued, so `msal login --device-code` completes
            """,
        specification: .init(valueOptions: ["port"], flagOptions: ["approve-device-codes"]),
        cancelsOnInterrupt: false, run: run)

    static func run(_ arguments: CommandLineArguments, _ environment: [String: String]) async throws -> ExitCode {
        var configuration = EntraEmulator.Configuration()
        if let port = try arguments.integer("port", in: 0...65535) { configuration.port = port }
        let signals = SignalWaiter([SIGINT, SIGTERM])
        let emulator = try EntraEmulator(configuration: configuration)
        Console.line(emulator.summary)
        Console.line(details(emulator))
        let approver = arguments.flag("approve-device-codes") ? approveDeviceCodes(emulator) : nil
        Console.line("Press Ctrl-C to stop.")
        await signals.wait()
        approver?.cancel()
        await approver?.value  // it holds the emulator: release it here, before the process exits
        emulator.stop()
        Console.line("Emulator stopped.")
        return .success
    }

    /// The sample app, the users and the environment block.
    static func details(_ emulator: EntraEmulator) -> String {
        let users = emulator.users.map(\.username).joined(separator: ", ")
        return """
            Sample app: client id \(EmulatorClient.sample.clientId) (redirect URI http://localhost, scopes \
            User.Read Mail.Read)
            Users: \(users); default \(emulator.defaultUsername ?? "-")
            Point msal at it (the cloud host names are sent to 127.0.0.1:\(emulator.port)):
              export MSAL_CLIENT_ID=\(EmulatorClient.sample.clientId)
              export MSAL_CA_FILE=\(emulator.certificateAuthority.certificateFile)
              export MSAL_CONNECT_TO=\(emulator.connectTo.joined(separator: ","))
              export MSAL_CACHE=$(mktemp -d)/msal_cache.json
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
                        Console.line("Approved device code \(code) as \(user).")
                    }
                }
            }
        }
    }
}
