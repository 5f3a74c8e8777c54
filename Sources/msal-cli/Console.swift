import Foundation

/// Where the tool writes. Every write goes straight to the file descriptor (no buffering), so a
/// parent process reading a pipe sees each line when it is written: the device code message, for
/// example, while the tool waits.
enum Console {
    /// Writes `text` to standard output.
    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Writes `text` and a newline to standard output.
    static func line(_ text: String = "") {
        out(text + "\n")
    }

    /// Writes `text` and a newline to standard error.
    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Writes `text` to standard error without a newline (for progress lines redrawn with `\r`).
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
