import Foundation
import MSALNative

/// Opens a URL in the user's browser: the app's ``MSALWebviewParameters/browserCommand``, else
/// `$BROWSER`, else `xdg-open`.
///
/// `$BROWSER` follows its usual convention: commands separated by `:`, tried in order until one
/// starts; in each, `%s` is replaced by the URL (and `%%` by `%`), or the URL is appended when there
/// is no `%s`. Commands are split into words on spaces and tabs (single or double quotes group
/// words) and run with `Foundation.Process`, never through a shell, so nothing in the URL or the
/// variable is interpreted. A command counts as started when it is still running after
/// ``launchGrace`` or exits with status 0.
struct SystemBrowser: Sendable {
    /// One command: the words, with `%s` where the URL goes.
    typealias Command = [String]

    /// The commands to try, in order.
    let commands: [Command]
    /// Where the commands' names are looked up.
    let searchPath: [String]
    /// Where the commands came from, for messages (`$BROWSER`, `browserCommand`, `xdg-open`).
    let source: String
    /// How long a command may take to fail before it counts as started.
    var launchGrace: TimeInterval = 1.5

    /// The commands for `browserCommand`, else `$BROWSER`, else `xdg-open`.
    init(browserCommand: String?, environment: [String: String] = ProcessInfo.processInfo.environment) {
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        searchPath = path.split(separator: ":").map(String.init).filter { !$0.isEmpty }
        if let browserCommand, !Self.parse(browserCommand).isEmpty {
            commands = Self.parse(browserCommand)
            source = "MSALWebviewParameters.browserCommand"
        } else if let variable = environment["BROWSER"], !Self.parse(variable).isEmpty {
            commands = Self.parse(variable)
            source = "$BROWSER"
        } else {
            commands = [["xdg-open"]]
            source = "xdg-open (no $BROWSER set)"
        }
    }

    /// The commands of a `$BROWSER`-style value.
    static func parse(_ value: String) -> [Command] {
        value.split(separator: ":").map { words(String($0)) }.filter { !$0.isEmpty }
    }

    /// Words split on spaces and tabs; quotes group, a backslash escapes the next character
    /// (outside single quotes). Nothing is expanded.
    static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for character in text {
            if escaped {
                current.append(character)
                escaped = false
                continue
            }
            if let open = quote {
                if character == open {
                    quote = nil
                } else if character == "\\" && open == "\"" {
                    escaped = true
                } else {
                    current.append(character)
                }
                continue
            }
            switch character {
            case " ", "\t", "\n":
                if inWord {
                    words.append(current)
                    current = ""
                    inWord = false
                }
            case "'", "\"":
                quote = character
                inWord = true
            case "\\":
                escaped = true
                inWord = true
            default:
                current.append(character)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }

    /// The arguments for `command` with `url`: `%s` replaced (`%%` → `%`), or `url` appended.
    static func arguments(_ command: Command, url: String) -> [String] {
        var substituted = false
        var result = command.map { word -> String in
            var output = ""
            var iterator = word.makeIterator()
            while let character = iterator.next() {
                guard character == "%" else {
                    output.append(character)
                    continue
                }
                switch iterator.next() {
                case "s":
                    output += url
                    substituted = true
                case "%":
                    output.append("%")
                case let other?:
                    output.append("%")
                    output.append(other)
                case nil:
                    output.append("%")
                }
            }
            return output
        }
        if !substituted { result.append(url) }
        return result
    }

    /// The executable for a command name: itself when it contains `/`, else the first executable
    /// of that name on the search path.
    func executable(_ name: String) -> String? {
        if name.contains("/") {
            return FileManager.default.isExecutableFile(atPath: name) ? name : nil
        }
        for directory in searchPath {
            let candidate = directory + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Opens `url` with the first command that starts. Waits up to ``launchGrace`` per command,
    /// suspended (the task checks the command every 10 ms).
    ///
    /// - Throws: -50000 naming the commands tried and why each failed.
    func open(_ url: URL, correlationId: UUID?) async throws {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
            throw MSALErrors.make(
                .internalErrorInvalidParameter, "Only http and https URLs are opened in the browser.",
                ErrorDetails(correlationId: correlationId))
        }
        var failures: [String] = []
        for command in commands {
            guard let name = command.first else { continue }
            let arguments = Self.arguments(command, url: url.absoluteString)
            guard let executable = executable(name) else {
                failures.append("'\(name)' was not found")
                continue
            }
            switch await launch(executable: executable, arguments: Array(arguments.dropFirst())) {
            case .started:
                Log.info("Opened the sign-in page with \(name).", correlationId: correlationId)
                return
            case .failed(let reason):
                failures.append("'\(name)' \(reason)")
            }
        }
        throw MSALErrors.make(
            .internal,
            "Cannot open the system browser with \(source): \(failures.joined(separator: "; ")). Set $BROWSER to a "
                + "browser command (for example BROWSER=firefox), install xdg-utils, or set "
                + "MSALWebviewParameters.customWebview; on a machine without a browser use the device code flow.",
            ErrorDetails(correlationId: correlationId))
    }

    private enum LaunchResult {
        case started
        case failed(String)
    }

    private func launch(executable: String, arguments: [String]) async -> LaunchResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return .failed("could not be started (\((error as NSError).localizedDescription))")
        }
        let deadline = ContinuousClock.now + .milliseconds(Int((launchGrace * 1000).rounded()))
        while process.isRunning && ContinuousClock.now < deadline {
            // Not `try`: a cancelled sign-in still learns whether the browser started.
            try? await Task.sleep(for: .milliseconds(10))
        }
        if process.isRunning { return .started }
        let status = process.terminationStatus
        if process.terminationReason == .exit && status == 0 { return .started }
        return .failed(
            process.terminationReason == .exit ? "exited with status \(status)" : "was killed by signal \(status)")
    }
}
