/// One command of `msal`: its name, what it accepts, its help, and what it does.
struct ToolCommand: Sendable {
    /// The word after `msal`.
    let name: String
    /// One line for the list of commands.
    let summary: String
    /// The `--help` text.
    let help: String
    /// The options it accepts.
    let specification: CommandLineArguments.Specification
    /// Whether Ctrl-C cancels it through the tool (`false`: the command handles signals itself).
    var cancelsOnInterrupt = true
    /// Whether it takes arguments other than options (`msal rest URL`); others refuse any.
    var acceptsArguments = false
    /// Runs it. Errors the library reported are thrown as they are; ``CommandFailure`` for others.
    let run: @Sendable (CommandLineArguments, [String: String]) async throws -> ExitCode
}
