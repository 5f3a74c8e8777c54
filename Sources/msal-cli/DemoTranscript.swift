import Foundation

/// One step of `msal demo`: a title, what should happen, and the code that makes it happen and
/// checks it (throwing ``DemoFailure`` when something else happened).
struct DemoStep: Sendable {
    let title: String
    let expected: String
    let run: @Sendable (DemoSession) async throws -> Void
}

/// A step did not behave as expected.
struct DemoFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// The readable transcript of the demo, on standard output.
enum DemoTranscript {
    static func header(_ lines: [String]) {
        for line in lines { Console.line(line) }
        Console.line()
    }

    static func stepStarted(_ number: Int, of count: Int, _ step: DemoStep) {
        Console.line("[\(number)/\(count)] \(step.title)")
        Console.line("  expected: \(step.expected)")
    }

    /// What happened (`·`) or a check that held (`✓`).
    static func note(_ text: String) {
        Console.line("    · \(text)")
    }

    static func checked(_ text: String) {
        Console.line("    ✓ \(text)")
    }

    static func stepPassed(seconds: TimeInterval) {
        Console.line("  ✓ as expected (\(format(seconds)))")
        Console.line()
    }

    static func stepFailed(_ reason: String, seconds: TimeInterval) {
        Console.line("  ✗ NOT as expected (\(format(seconds))): \(reason)")
        Console.line()
    }

    /// A token for the transcript: its first 8 characters and its length, never the whole token.
    static func short(_ token: String?) -> String {
        guard let token, !token.isEmpty else { return "(none)" }
        return "\(token.prefix(8))… (\(token.count) characters)"
    }

    static func format(_ seconds: TimeInterval) -> String {
        String(format: "%.2f s", seconds)
    }
}
