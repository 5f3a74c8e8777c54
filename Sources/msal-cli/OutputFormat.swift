import Foundation

/// `-o/--output`: how a command prints its result on standard output. Messages, prompts and
/// progress always go to standard error, whatever the format.
enum OutputFormat: String, CaseIterable {
    /// The command's plain form: the token alone, one account per line.
    case text
    /// A JSON document.
    case json
    /// Tab-separated values, one record per line, no header (for `read` and `cut`).
    case tsv
    /// Nothing: only the exit code tells.
    case none

    /// The format `arguments` ask for: `--output`, else `--json` (the older spelling of `-o json`),
    /// else text.
    init(_ arguments: CommandLineArguments) throws(CommandLineArguments.UsageError) {
        guard let text = arguments.values["output"] else {
            self = arguments.flag("json") ? .json : .text
            return
        }
        guard let format = OutputFormat(rawValue: text.lowercased()) else {
            let names = Set(Self.allCases.map(\.rawValue))
            throw CommandLineArguments.UsageError(
                description: "--output '\(text)' is not one of \(Self.allCases.map(\.rawValue).joined(separator: ", "))"
                    + CommandLineArguments.suggestion(text, among: names, dashes: ""),
                command: arguments.command)
        }
        if arguments.flag("json") && format != .json {
            throw CommandLineArguments.UsageError(
                description: "--json and --output \(text) contradict each other", command: arguments.command)
        }
        self = format
    }

    /// The options that choose the format, for a command's specification.
    static let specification = CommandLineArguments.Specification(valueOptions: ["output"], flagOptions: ["json"])
}
