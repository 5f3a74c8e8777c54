import Foundation
import Synchronization

/// What the user sees on standard error while the device code flow polls: on a terminal a spinner
/// and the seconds left, redrawn in place; otherwise (a pipe, a file, `TERM=dumb`) a plain line
/// every 15 seconds.
final class DeviceCodeProgress: Sendable {
    private struct State {
        var task: Task<Void, Never>?
        var stopped = false
    }

    private let animated: Bool
    private let state = Mutex(State())
    private static let frames = Array("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")

    init(animated: Bool) {
        self.animated = animated
    }

    /// Whether the progress is a redrawn spinner: only on a terminal that can redraw a line
    /// (standard error is a terminal, and `TERM` is set and not `dumb`).
    static func animates(standardErrorIsTerminal: Bool, term: String?) -> Bool {
        guard standardErrorIsTerminal, let term, !term.isEmpty else { return false }
        return term != "dumb"
    }

    /// Starts showing progress until `expiresOn`.
    func start(expiresOn: Date) {
        let task = Task.detached { [self] in
            var frame = 0
            var lastPlainLine = Date.distantPast
            while !Task.isCancelled {
                let left = Self.secondsLeft(until: expiresOn)
                let line: String?
                if animated {
                    let spinner = Self.frames[frame % Self.frames.count]
                    line = "\r\u{1B}[2K\(spinner) Waiting for you to sign in... \(left) s left (Ctrl-C cancels)"
                    frame += 1
                } else if Date().timeIntervalSince(lastPlainLine) >= 15 {
                    line = "Waiting for the sign-in to finish; the code expires in \(left) s.\n"
                    lastPlainLine = Date()
                } else {
                    line = nil
                }
                if let line { draw(line) }
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        state.withLock { $0.task = task }
    }

    /// Stops and clears the progress line; nothing is drawn afterwards.
    func stop() {
        let task = state.withLock { state -> Task<Void, Never>? in
            if animated && state.task != nil && !state.stopped { Console.errorRaw("\r\u{1B}[2K") }
            state.stopped = true
            return state.task.take()
        }
        task?.cancel()
    }

    /// Whole seconds from now to `date`, 0 when past, and never a trap: the library refuses device
    /// codes that live beyond 10 years, and this clamps to 10 years anyway.
    static func secondsLeft(until date: Date, now: Date = Date()) -> Int {
        let left = date.timeIntervalSince(now)
        guard left.isFinite, left > 0 else { return 0 }
        return Int(min(left, 315_576_000).rounded())
    }

    private func draw(_ line: String) {
        state.withLock { state in
            if !state.stopped { Console.errorRaw(line) }
        }
    }
}
