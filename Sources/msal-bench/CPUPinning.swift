import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `--cpu N`: every thread of the benchmark on one CPU.
///
/// On this project's 2-CPU virtual machine, a loopback round trip costs about 50 µs when the
/// client and the server thread share a CPU and 90-240 µs when a wake-up must cross to the other
/// one, and which of the two happens is decided by the scheduler per connection and per run. A
/// comparison of two clients (each with its own connection and server thread) then measures
/// placement, not the clients. On one CPU both pay the same for every wake-up, so the difference
/// left is the work each client does.
enum CPUPinning {
    /// glibc's `sched_setaffinity`, which its Swift module does not export (it is a GNU extension).
    private typealias SetAffinity = @convention(c) (pid_t, Int, UnsafeRawPointer) -> Int32

    /// Pins the threads that exist now to `cpu`; threads started later inherit it.
    static func pinProcess(to cpu: Int) throws {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sched_setaffinity") else {
            throw NSError(
                domain: NSPOSIXErrorDomain, code: Int(ENOSYS),
                userInfo: [NSLocalizedDescriptionKey: "sched_setaffinity is not available"])
        }
        let setAffinity = unsafeBitCast(symbol, to: SetAffinity.self)
        guard cpu >= 0, cpu < MemoryLayout<cpu_set_t>.size * 8 else {
            throw NSError(
                domain: NSPOSIXErrorDomain, code: Int(EINVAL),
                userInfo: [NSLocalizedDescriptionKey: "--cpu \(cpu) is not a CPU number"])
        }
        var set = cpu_set_t()
        withUnsafeMutableBytes(of: &set) { bytes in
            bytes.initializeMemory(as: UInt8.self, repeating: 0)
            bytes[cpu / 8] |= UInt8(1) << UInt8(cpu % 8)
        }
        let threads = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").compactMap { pid_t($0) }
        for thread in threads where withUnsafeBytes(of: &set, { setAffinity(thread, $0.count, $0.baseAddress!) }) != 0 {
            throw NSError(
                domain: NSPOSIXErrorDomain, code: Int(errno),
                userInfo: [NSLocalizedDescriptionKey: "sched_setaffinity(\(thread), cpu \(cpu)) failed"])
        }
    }
}
