internal import Glibc
package import MSALNative

/// Pinning the threads of this process to one CPU (`sched_setaffinity`), for benchmarks that
/// must not measure the scheduler's placement of threads.
package enum CPUAffinity {
    /// glibc's `sched_setaffinity`, which its Swift module does not export (a GNU extension).
    private typealias SetAffinity = @convention(c) (pid_t, Int, UnsafeRawPointer) -> Int32

    /// Pins every thread that exists now to `cpu`; threads started later inherit it.
    package static func pinThreads(to cpu: Int) throws(NativeError) {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sched_setaffinity") else {
            throw NativeError(function: "sched_setaffinity", reason: "not available")
        }
        let setAffinity = unsafeBitCast(symbol, to: SetAffinity.self)
        guard cpu >= 0, cpu < MemoryLayout<cpu_set_t>.size * 8 else {
            throw NativeError(function: "sched_setaffinity", reason: "\(cpu) is not a CPU number")
        }
        var set = cpu_set_t()
        withUnsafeMutableBytes(of: &set) { bytes in
            bytes.initializeMemory(as: UInt8.self, repeating: 0)
            bytes[cpu / 8] |= UInt8(1) << UInt8(cpu % 8)
        }
        let threads: [pid_t]
        do {
            threads = try FileSystem.names(inFolder: "/proc/self/task").compactMap { pid_t($0) }
        } catch {
            throw NativeError(function: "sched_setaffinity", reason: error.description)
        }
        for thread in threads where withUnsafeBytes(of: &set, { setAffinity(thread, $0.count, $0.baseAddress!) }) != 0 {
            throw NativeError(
                function: "sched_setaffinity",
                reason: "thread \(thread), cpu \(cpu): \(FileError.message(for: errno))")
        }
    }
}
