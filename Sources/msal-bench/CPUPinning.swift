import Foundation
import MSALBenchNative
import MSALNative

/// `--cpu N`: every thread of the benchmark on one CPU.
///
/// On this project's 2-CPU virtual machine, a loopback round trip costs about 50 µs when the
/// client and the server thread share a CPU and 90-240 µs when a wake-up must cross to the other
/// one, and which of the two happens is decided by the scheduler per connection and per run. A
/// comparison of two clients (each with its own connection and server thread) then measures
/// placement, not the clients. On one CPU both pay the same for every wake-up, so the difference
/// left is the work each client does.
enum CPUPinning {
    /// Pins the threads that exist now to `cpu`; threads started later inherit it.
    static func pinProcess(to cpu: Int) throws {
        do {
            try CPUAffinity.pinThreads(to: cpu)
        } catch {
            throw NSError(
                domain: NSPOSIXErrorDomain, code: 0, userInfo: [NSLocalizedDescriptionKey: error.description])
        }
    }
}
