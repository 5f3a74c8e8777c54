import Foundation

/// Timing samples of one scenario and their report line.
struct Measurement {
    var scenario: String
    var params: [String: any Sendable]
    var samples: [UInt64] = []

    var median: UInt64 { percentile(0.5) }
    var p99: UInt64 { percentile(0.99) }

    func percentile(_ fraction: Double) -> UInt64 {
        guard !samples.isEmpty else { return 0 }
        let sorted = samples.sorted()
        let index = min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))
        return sorted[index]
    }

    /// One JSON object: `{"scenario", "params", "median_ns", "p99_ns", "runs"}`.
    func jsonLine() -> String {
        let object: [String: Any] = [
            "scenario": scenario,
            "params": params,
            "median_ns": median,
            "p99_ns": p99,
            "runs": samples.count,
        ]
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            return "{}"
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Nanoseconds elapsed while `body` runs.
func timeNanoseconds(_ body: () throws -> Void) rethrows -> UInt64 {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return DispatchTime.now().uptimeNanoseconds - start
}

/// Nanoseconds elapsed while the async `body` runs.
func timeNanosecondsAsync(_ body: () async throws -> Void) async rethrows -> UInt64 {
    let start = DispatchTime.now().uptimeNanoseconds
    try await body()
    return DispatchTime.now().uptimeNanoseconds - start
}
