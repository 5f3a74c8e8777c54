import Foundation

// The `msal` command-line tool: see `Tool` and Docs/CLI.md.
let exitCode = await Tool.run(
    Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
exit(exitCode.rawValue)
