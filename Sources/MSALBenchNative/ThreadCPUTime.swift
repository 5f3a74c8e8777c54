internal import Glibc

/// CPU time of the calling thread (`CLOCK_THREAD_CPUTIME_ID`): what a benchmark's work cost,
/// without the time the shared machine gave to other processes.
package enum ThreadCPUTime {
    /// In nanoseconds since the thread started.
    package static var nanoseconds: UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
