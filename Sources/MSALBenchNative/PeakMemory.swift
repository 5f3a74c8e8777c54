internal import Glibc

/// The process's peak resident set size (for benchmarks).
package enum PeakMemory {
    /// In bytes (`getrusage`'s `ru_maxrss`, which Linux gives in KiB).
    package static var residentBytes: Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss * 1024
    }
}
