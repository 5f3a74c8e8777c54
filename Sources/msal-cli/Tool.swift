import Foundation
import MSAL

/// `msal`: parses the command line, runs the command, reports errors, and returns the exit code.
enum Tool {
    static var version: String { LibraryInfo.version }

    static let commands: [ToolCommand] = [
        LoginCommand.command, TokenCommand.command, AccountsCommand.command, LogoutCommand.command,
        EmulatorCommand.command, DemoCommand.command,
    ]

    static var specifications: [String: CommandLineArguments.Specification] {
        var table = Dictionary(uniqueKeysWithValues: commands.map { ($0.name, $0.specification) })
        table[""] = .init(valueOptions: [], flagOptions: ["version"])
        return table
    }

    static var help: String {
        let width = commands.map(\.name.count).max() ?? 0
        let list = commands.map {
            "  \($0.name.padding(toLength: width + 2, withPad: " ", startingAt: 0))\($0.summary)"
        }
        return """
            usage: msal <command> [options]

            Sign in to Microsoft Entra ID (and Azure AD B2C) and get tokens from a shell.

            Commands:
            \(list.joined(separator: "\n"))

            `msal <command> --help` describes a command; `msal --version` prints the version.
            Exit codes: 0 ok, 1 failure, 2 usage, 3 interaction required, 4 network, 5 cancelled,
            6 declined scopes, 7 throttled, 130 interrupted (see Docs/CLI.md).
            """
    }

    /// Runs `arguments` (without the program name) and returns the exit code.
    static func run(_ arguments: [String], environment: [String: String]) async -> ExitCode {
        let parsed: CommandLineArguments
        do {
            parsed = try CommandLineArguments.parse(arguments, specifications: specifications).rejectingPositional()
        } catch {
            return usageError(error.description, command: command(named: firstWord(arguments)))
        }
        guard let name = parsed.command, let command = command(named: name) else {
            if parsed.flag("version") {
                Console.line("msal \(version)")
                return .success
            }
            if parsed.flag("help") {
                Console.line(help)
                return .success
            }
            return usageError("no command given", command: nil)
        }
        if parsed.flag("help") {
            Console.line(command.help)
            return .success
        }
        if parsed.flag("verbose") { enableLogging() }
        let environment = environment
        let body: @Sendable () async throws -> ExitCode = { try await command.run(parsed, environment) }
        defer { CacheNotices.report() }
        do {
            return command.cancelsOnInterrupt ? try await Interrupt.run(body) : try await body()
        } catch let failure as CommandLineArguments.UsageError {
            return usageError(failure.description, command: command)
        } catch let failure as CommandFailure {
            Console.error("msal: \(failure.message)")
            return failure.code
        } catch is Interrupt.Interrupted {
            Console.error("msal: interrupted")
            return .interrupted
        } catch {
            return ErrorReport.report(error)
        }
    }

    private static func command(named name: String?) -> ToolCommand? {
        commands.first { $0.name == name }
    }

    private static func firstWord(_ arguments: [String]) -> String? {
        arguments.first { !$0.hasPrefix("-") }
    }

    private static func usageError(_ message: String, command: ToolCommand?) -> ExitCode {
        Console.error("msal: \(message)\n")
        Console.error(command?.help ?? help)
        return .usage
    }

    /// `--verbose`: MSAL's messages at every level on standard error, personal data masked.
    private static func enableLogging() {
        let logger = MSALGlobalConfig.loggerConfig
        logger.logLevel = .verbose
        logger.logMaskingLevel = .maskAllPII
        logger.piiEnabled = false
        logger.setLogCallback { level, message, _ in
            Console.error("[msal \(level)] \(message ?? "")")
        }
    }
}
