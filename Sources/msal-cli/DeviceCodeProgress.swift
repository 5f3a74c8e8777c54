import Foundation
import Synchronization

/// What the user sees on standard error while the device code flow polls: on a terminal a spinner
/// and the seconds left, redrawn in place; otherwise a plain line every 15 seconds.
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

    /// Starts showing progress until `expiresOn`.
    func start(expiresOn: Date) {
        let task = Task.detached { [self] in
            var frame = 0
            var lastPlainLine = Date.distantPast
            while !Task.isCancelled {
                let left = max(0, Int(expiresOn.timeIntervalSinceNow.rounded()))
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

    private func draw(_ line: String) {
        state.withLock { state in
            if !state.stopped { Console.errorRaw(line) }
        }
    }
}
