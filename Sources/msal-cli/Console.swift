import Foundation
import MSAL

/// Where the tool writes. Every write goes straight to the file descriptor (no buffering), so a
/// parent process reading a pipe sees each line when it is written: the device code message, for
/// example, while the tool waits.
///
/// Much of what the tool prints comes from a server (error descriptions, suberrors, the device
/// code message, user names from id tokens), so ``out(_:)``, ``line(_:)`` and ``error(_:)`` write
/// every control character as a visible escape (``TerminalText``): a server cannot clear the
/// screen, retitle the window or forge a line. Only ``errorRaw(_:)`` writes the tool's own
/// control sequences (the progress line).
enum Console {
    /// Writes `text` to standard output, control characters escaped (line feeds kept).
    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data(TerminalText.escaped(text, keepingLineFeeds: true).utf8))
    }

    /// Writes `text` and a newline to standard output.
    static func line(_ text: String = "") {
        out(text + "\n")
    }

    /// Writes one line of tab-separated `fields` to standard output (`-o tsv`): each field's control
    /// characters escaped (tabs and line breaks in a field too), so a field never splits a record.
    static func record(_ fields: [String]) {
        let line = fields.map { TerminalText.escaped($0) }.joined(separator: "\t") + "\n"
        FileHandle.standardOutput.write(Data(line.utf8))
    }

    /// Writes `text` and a newline to standard error, control characters escaped (line feeds kept).
    static func error(_ text: String) {
        FileHandle.standardError.write(Data((TerminalText.escaped(text, keepingLineFeeds: true) + "\n").utf8))
    }

    /// Writes the tool's own `text` to standard error as it is, without a newline (for progress
    /// lines redrawn with `\r`). Never pass a server's text.
    static func errorRaw(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Whether standard error is a terminal (spinners and redrawn lines only then).
    static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Whether standard output is a terminal.
    static var standardOutputIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// `value` as pretty, key-sorted JSON without escaped slashes.
    static func json<Value: Encodable>(_ value: Value) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
