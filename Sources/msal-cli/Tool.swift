import Foundation
import MSAL

/// `msal`: parses the command line, runs the command, reports errors, and returns the exit code.
enum Tool {
    static var version: String { LibraryInfo.version }

    static let commands: [ToolCommand] = [
        LoginCommand.command, TokenCommand.command, AccountsCommand.command, LogoutCommand.command,
        RestCommand.command, EmulatorCommand.command, DemoCommand.command, DoctorCommand.command,
    ]

    /// Options every command that the tool can cancel accepts (see ``ToolCommand/cancelsOnInterrupt``).
    static let commonSpecification = CommandLineArguments.Specification(
        valueOptions: ["timeout"], flagOptions: ["verbose"])

    /// The global options: accepted before the command too (each must still apply to the command).
    static let globalSpecification = ApplicationOptions.specification.adding(commonSpecification)
        .adding(OutputFormat.specification).adding(.init(valueOptions: [], flagOptions: ["version"]))

    static var specifications: [String: CommandLineArguments.Specification] {
        var table = Dictionary(
            uniqueKeysWithValues: commands.map {
                ($0.name, $0.cancelsOnInterrupt ? $0.specification.adding(commonSpecification) : $0.specification)
            })
        table[""] = globalSpecification
        table["help"] = .init(valueOptions: [], flagOptions: [])
        return table
    }

    static var help: String {
        let width = commands.map(\.name.count).max() ?? 0
        let list = (commands.map { ($0.name, $0.summary) } + [("help", "describe a command: msal help <command>")]).map
        {
            "  \($0.0.padding(toLength: width + 2, withPad: " ", startingAt: 0))\($0.1)"
        }
        return """
            usage: msal [global options] <command> [options]

            Sign in to Microsoft Entra ID (and Azure AD B2C) and get tokens from a shell.

            Commands:
            \(list.joined(separator: "\n"))

            Global options (before or after the command):
              -o, --output FORMAT  text (default), json, tsv or none: how results are printed
              --timeout SECONDS    stop the command after that long (exit code 124)
              --verbose            MSAL's log on standard error (personal data masked)
              --client-id, --authority, --tenant, --cache, --ca-file, --known-authority,
              --no-instance-discovery: see `msal help token`

            Results go to standard output; messages, prompts and progress to standard error.
            `msal help <command>` (or `msal <command> --help`) describes a command; `msal --version`
            prints the version. Exit codes: 0 ok, 1 failure, 2 usage, 3 interaction required,
            4 network, 5 cancelled, 6 declined scopes, 7 throttled, 8 HTTP error status (msal rest),
            124 timed out, 130 interrupted, 143 terminated (see Docs/CLI.md).
            """
    }

    /// Runs `arguments` (without the program name) and returns the exit code.
    static func run(_ arguments: [String], environment: [String: String]) async -> ExitCode {
        let parsed: CommandLineArguments
        do {
            parsed = try CommandLineArguments.parse(arguments, specifications: specifications)
        } catch {
            return usageError(error)
        }
        if parsed.command == "help" { return helpCommand(parsed) }
        guard let name = parsed.command, let command = command(named: name) else {
            if parsed.flag("help") {
                Console.line(help)
                return .success
            }
            if parsed.flag("version") {
                Console.line("msal \(version)")
                return .success
            }
            return usageError(.init(description: "no command given"))
        }
        if parsed.flag("help") {
            Console.line(command.help)
            return .success
        }
        let timeout: Double?
        do {
            if !command.acceptsArguments { _ = try parsed.rejectingPositional() }
            timeout = try parsed.seconds("timeout")
        } catch {
            return usageError(error)
        }
        if parsed.flag("verbose") { enableLogging() }
        let environment = environment
        let body: @Sendable () async throws -> ExitCode = { try await command.run(parsed, environment) }
        defer { CacheNotices.report() }
        do {
            return command.cancelsOnInterrupt ? try await Interrupt.run(timeout: timeout, body) : try await body()
        } catch let failure as CommandLineArguments.UsageError {
            var failure = failure
            failure.command = failure.command ?? command.name
            return usageError(failure)
        } catch let failure as CommandFailure {
            Console.error("msal: \(failure.message)")
            return failure.code
        } catch let interrupted as Interrupt.Interrupted {
            switch interrupted.reason {
            case .interrupt: Console.error("msal: interrupted")
            case .terminate: Console.error("msal: terminated (SIGTERM)")
            case .timeout: Console.error("msal: timed out after \(format(timeout ?? 0)) s (--timeout)")
            }
            return interrupted.reason.exitCode
        } catch {
            return ErrorReport.report(error)
        }
    }

    /// `msal help [command]`.
    private static func helpCommand(_ parsed: CommandLineArguments) -> ExitCode {
        guard let name = parsed.positional.first else {
            Console.line(help)
            return .success
        }
        guard parsed.positional.count == 1, let command = command(named: name) else {
            let names = Set(commands.map(\.name))
            let problem =
                parsed.positional.count == 1
                ? "unknown command '\(name)'" + CommandLineArguments.suggestion(name, among: names, dashes: "")
                : "help takes one command"
            return usageError(.init(description: problem))
        }
        Console.line(command.help)
        return .success
    }

    private static func command(named name: String?) -> ToolCommand? {
        commands.first { $0.name == name }
    }

    /// One line on standard error: the mistake and where to read more.
    private static func usageError(_ error: CommandLineArguments.UsageError) -> ExitCode {
        let help = error.command.map { "msal \($0) --help" } ?? "msal --help"
        Console.error("msal: \(error.description); see `\(help)`")
        return .usage
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
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
