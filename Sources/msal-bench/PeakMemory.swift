import Glibc

/// The process's peak resident set size.
enum PeakMemory {
    /// In bytes (`getrusage`'s `ru_maxrss`, which Linux gives in KiB).
    static var residentBytes: Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss * 1024
    }
}
