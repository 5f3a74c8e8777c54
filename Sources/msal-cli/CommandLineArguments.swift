/// A small, strict command-line parser: a command, then `--name value`, `--name=value` and
/// `--flag` options; `--` ends options. No outside package can be fetched, so this is ours.
struct CommandLineArguments: Equatable {
    /// The command (`login`, `token`, ...), or `nil` when none was given.
    var command: String?
    /// Options with values, by name without dashes.
    var values: [String: String] = [:]
    /// Flags given.
    var flags: Set<String> = []
    /// Arguments after the command that are not options.
    var positional: [String] = []

    /// What a command accepts.
    struct Specification {
        var valueOptions: Set<String>
        var flagOptions: Set<String>

        /// This specification plus `other`'s options.
        func adding(_ other: Specification) -> Specification {
            Specification(
                valueOptions: valueOptions.union(other.valueOptions), flagOptions: flagOptions.union(other.flagOptions))
        }
    }

    /// A usage mistake, with a message for the user.
    struct UsageError: Error, Equatable, CustomStringConvertible {
        let description: String
    }

    /// Parses `arguments` (without the program name) for `command`'s `specification`.
    static func parse(_ arguments: [String], specifications: [String: Specification]) throws(UsageError)
        -> CommandLineArguments
    {
        var result = CommandLineArguments()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                if result.command == nil && !optionsEnded {
                    guard specifications[argument] != nil else {
                        throw UsageError(description: "unknown command '\(argument)'")
                    }
                    result.command = argument
                } else {
                    result.positional.append(argument)
                }
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            if argument == "-h" || argument == "--help" {
                result.flags.insert("help")
                continue
            }
            guard argument.hasPrefix("--"), argument.count > 2 else {
                throw UsageError(description: "unknown option '\(argument)' (options start with --)")
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            let specification = result.command.flatMap { specifications[$0] } ?? specifications[""]
            guard let specification else { throw UsageError(description: "unknown option '--\(name)'") }
            if specification.flagOptions.contains(name) {
                guard inlineValue == nil else { throw UsageError(description: "--\(name) takes no value") }
                result.flags.insert(name)
            } else if specification.valueOptions.contains(name) {
                if let inlineValue {
                    result.values[name] = inlineValue
                } else {
                    guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                        throw UsageError(description: "--\(name) needs a value")
                    }
                    result.values[name] = arguments[index]
                    index += 1
                }
            } else {
                let command = result.command.map { " for '\($0)'" } ?? ""
                throw UsageError(description: "unknown option '--\(name)'\(command)")
            }
        }
        return result
    }

    /// The value of `name`, else of the environment variable `variable`, else `nil`.
    func value(_ name: String, environment: [String: String], variable: String? = nil) -> String? {
        if let value = values[name] { return value }
        guard let variable, let value = environment[variable], !value.isEmpty else { return nil }
        return value
    }

    /// Whether `--name` was given.
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// Throws when arguments other than options were given (no command takes any).
    func rejectingPositional() throws(UsageError) -> CommandLineArguments {
        if let first = positional.first { throw UsageError(description: "unexpected argument '\(first)'") }
        return self
    }

    /// The value of `name` as an integer in `range`, or `nil` when not given.
    func integer(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = values[name] else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(
                description: "--\(name) needs a number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return number
    }
}
