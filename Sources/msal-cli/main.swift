import Foundation

// The `msal` command-line tool. Commands arrive with the CLI issue; for now it parses arguments
// and reports usage.
let specifications: [String: CommandLineArguments.Specification] = [
    "": .init(valueOptions: [], flagOptions: ["version"])
]
do {
    let arguments = try CommandLineArguments.parse(
        Array(CommandLine.arguments.dropFirst()), specifications: specifications)
    if arguments.flag("version") {
        print("msal 0.1.0")
    } else {
        print("usage: msal <command> [options]")
    }
} catch {
    FileHandle.standardError.write(Data("msal: \(error.description)\n".utf8))
    exit(2)
}
