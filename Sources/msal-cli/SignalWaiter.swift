import Dispatch
import Foundation
import Synchronization

/// Waits for one of some signals, delivered through dispatch sources (the default actions are
/// switched off while it exists).
final class SignalWaiter: @unchecked Sendable {
    // @unchecked: `sources` is immutable and only cancelled in deinit; the rest is behind a Mutex.
    private let sources: [any DispatchSourceSignal]
    private let state = Mutex<(arrived: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    init(_ signals: [Int32]) {
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in signals {
            signal(signalNumber, SIG_IGN)
            sources.append(DispatchSource.makeSignalSource(signal: signalNumber, queue: .global()))
        }
        self.sources = sources
        for source in sources {
            source.setEventHandler { [weak self] in self?.arrive() }
            source.resume()
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }

    /// Returns once a signal arrived (at once when one already did).
    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                if state.arrived { return true }
                state.waiter = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    private func arrive() {
        let waiter = state.withLock { state in
            state.arrived = true
            return state.waiter.take()
        }
        waiter?.resume()
    }
}
