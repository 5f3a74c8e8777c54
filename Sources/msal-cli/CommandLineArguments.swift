/// A small, strict command-line parser: a command, then `--name value`, `--name=value`, `-o value`
/// and `--flag` options; `--` ends options. Options the tool accepts for every command (global
/// options) may also come before the command. No outside package can be fetched, so this is ours.
struct CommandLineArguments: Equatable {
    /// The command (`login`, `token`, ...), or `nil` when none was given.
    var command: String?
    /// Options with values, by name without dashes (the last one given).
    var values: [String: String] = [:]
    /// Every value of each option with values, in order (for repeatable options).
    var allValues: [String: [String]] = [:]
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

        /// Every option name.
        var names: Set<String> { valueOptions.union(flagOptions) }
    }

    /// A usage mistake, with a message for the user and the command it concerns (for "see `msal
    /// <command> --help`").
    struct UsageError: Error, Equatable, CustomStringConvertible {
        let description: String
        var command: String?

        init(description: String, command: String? = nil) {
            self.description = description
            self.command = command
        }
    }

    /// Other spellings of options: Azure CLI's `--scope` is `--scopes`.
    static let aliases = ["scope": "scopes"]
    /// One-letter options: `-o json` is `--output json`, `-h` is `--help`.
    static let shortOptions: [Character: String] = ["o": "output", "h": "help"]

    /// Parses `arguments` (without the program name). `specifications` gives what each command
    /// accepts; the entry `""` gives the global options, which may also come before the command
    /// (they must then be accepted by the command too).
    static func parse(_ arguments: [String], specifications: [String: Specification]) throws(UsageError)
        -> CommandLineArguments
    {
        var result = CommandLineArguments()
        var index = 0
        var optionsEnded = false
        var beforeCommand: [String] = []
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                if result.command == nil && !optionsEnded {
                    guard specifications[argument] != nil, !argument.isEmpty else {
                        let commands = specifications.keys.filter { !$0.isEmpty }
                        throw UsageError(
                            description: "unknown command '\(argument)'"
                                + suggestion(argument, among: Set(commands), dashes: ""))
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
            guard var name = optionName(argument) else {
                throw UsageError(
                    description: "unknown option '\(argument)' (options start with --)", command: result.command)
            }
            if name == "help" {
                result.flags.insert("help")
                continue
            }
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            name = aliases[name] ?? name
            let specification = result.command.flatMap { specifications[$0] } ?? specifications[""]
            guard let specification else {
                throw UsageError(description: "unknown option '--\(name)'", command: result.command)
            }
            if result.command == nil { beforeCommand.append(name) }
            if specification.flagOptions.contains(name) {
                guard inlineValue == nil else {
                    throw UsageError(description: "--\(name) takes no value", command: result.command)
                }
                result.flags.insert(name)
            } else if specification.valueOptions.contains(name) {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                        throw UsageError(description: "--\(name) needs a value", command: result.command)
                    }
                    value = arguments[index]
                    index += 1
                }
                result.values[name] = value
                result.allValues[name, default: []].append(value)
            } else {
                let scope = result.command.map { " for '\($0)'" } ?? ""
                let hint = suggestion(name, among: specification.names, dashes: "--")
                throw UsageError(
                    description: "unknown option '--\(name)'\(scope)\(hint)", command: result.command)
            }
        }
        if let command = result.command, let specification = specifications[command] {
            for name in beforeCommand where !specification.names.contains(name) {
                throw UsageError(description: "option '--\(name)' does not apply to '\(command)'", command: command)
            }
        }
        return result
    }

    /// The name of an option argument (`--name`, `--name=value`, `-o`), without dashes; `nil` when
    /// it is not an option the parser knows the shape of.
    private static func optionName(_ argument: String) -> String? {
        if argument.hasPrefix("--") {
            return argument.count > 2 ? String(argument.dropFirst(2)) : nil
        }
        guard argument.count == 2, let letter = argument.last, let name = shortOptions[letter] else { return nil }
        return name
    }

    /// " (did you mean '--scopes'?)" when one of `names` is close to `word`, else "".
    static func suggestion(_ word: String, among names: Set<String>, dashes: String) -> String {
        guard let nearest = nearest(to: word, among: names) else { return "" }
        return " (did you mean '\(dashes)\(nearest)'?)"
    }

    /// The name closest to `word`: one it starts, or within a few edits (a third of its length,
    /// at least 2); `nil` when none is close. Ties go to the first in alphabetical order.
    static func nearest(to word: String, among names: Set<String>) -> String? {
        let lowered = word.lowercased()
        let sorted = names.sorted()
        let prefixed = sorted.filter { $0.hasPrefix(lowered) || (lowered.count >= 4 && lowered.hasPrefix($0)) }
        if prefixed.count == 1 { return prefixed[0] }
        let limit = max(2, lowered.count / 3)
        var best: (name: String, distance: Int)?
        for name in sorted {
            let distance = editDistance(lowered, name)
            if distance <= limit, distance < (best?.distance ?? .max) { best = (name, distance) }
        }
        return best?.name
    }

    /// Levenshtein distance, with an adjacent swap counting as one edit.
    static func editDistance(_ first: String, _ second: String) -> Int {
        let a = Array(first)
        let b = Array(second)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, table[i - 2][j - 2] + 1)
                }
                table[i][j] = value
            }
        }
        return table[a.count][b.count]
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
        if let first = positional.first {
            throw UsageError(description: "unexpected argument '\(first)'", command: command)
        }
        return self
    }

    /// The value of `name` as an integer in `range`, or `nil` when not given.
    func integer(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = values[name] else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(
                description: "--\(name) needs a number from \(range.lowerBound) to \(range.upperBound), not '\(text)'",
                command: command)
        }
        return number
    }

    /// The value of `name` as a number of seconds above 0 (at most a day), or `nil` when not given.
    func seconds(_ name: String) throws(UsageError) -> Double? {
        guard let text = values[name] else { return nil }
        guard let number = Double(text), number.isFinite, number > 0, number <= 86_400 else {
            throw UsageError(
                description: "--\(name) needs a number of seconds above 0 (at most 86400), not '\(text)'",
                command: command)
        }
        return number
    }
}
