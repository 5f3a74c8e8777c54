import CMSALBrokerBus
import Glibc

/// D-Bus through sd-bus of libsystemd (opened at run time), as far as the Linux broker needs it:
/// a method call with three strings in and one string out, with a deadline. Every call opens a
/// connection of its own and closes it, so calls on several threads share nothing.
package enum BrokerBus {
    /// A failed bus operation.
    package enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// libsystemd.so.0 could not be loaded (or lacks a function), for this reason.
        case libraryMissing(String)
        /// The bus could not be reached (`errno`).
        case connect(Int32)
        /// No reply within the deadline.
        case timeout
        /// The reply was the D-Bus error `name` with `message`.
        case error(name: String, message: String)
        /// The call failed without a D-Bus error (`errno`), or the reply was not one string.
        case call(Int32)

        package var description: String {
            switch self {
            case .libraryMissing(let reason): return reason
            case .connect(let code): return "the bus could not be reached: \(Self.text(code))"
            case .timeout: return "no reply within the deadline"
            case .error(let name, let message): return "\(name): \(message)"
            case .call(let code): return "the call failed: \(Self.text(code))"
            }
        }

        private static func text(_ code: Int32) -> String { "\(String(cString: strerror(code))) (errno \(code))" }

        /// Whether the name has no owner on the bus and none could be started.
        package var isNameAbsent: Bool {
            guard case .error(let name, _) = self else { return false }
            // Spawn errors: a service file names the broker, but it could not be started.
            return name == "org.freedesktop.DBus.Error.ServiceUnknown"
                || name == "org.freedesktop.DBus.Error.NameHasNoOwner"
                || name.hasPrefix("org.freedesktop.DBus.Error.Spawn.")
        }
    }

    /// Opens libsystemd.so.0 (once per process); throws the reason when it cannot.
    package static func loadLibrary() throws(Failure) {
        var reason: UnsafePointer<CChar>?
        guard cmsal_bus_load(&reason) != 0 else {
            throw .libraryMissing(reason.map { String(cString: $0) } ?? "libsystemd.so.0 could not be loaded")
        }
    }

    /// Calls `member` of `interface` at `path` of `destination` on the bus at `address` (the
    /// session bus when `nil`) with three strings, and returns the string it answers. Blocks the
    /// calling thread for at most `timeout` seconds (connecting included).
    package static func call(
        address: String?, destination: String, path: String, interface: String, member: String,
        arguments: (String, String, String), timeout: Double
    ) throws(Failure) -> String {
        try loadLibrary()
        var bus: OpaquePointer?
        let opened = cmsal_bus_open(address, &bus)
        guard opened >= 0, let bus else { throw .connect(-opened) }
        defer { cmsal_bus_close(bus) }
        var reply: UnsafeMutablePointer<CChar>?
        var errorName: UnsafeMutablePointer<CChar>?
        var errorMessage: UnsafeMutablePointer<CChar>?
        defer {
            cmsal_bus_free(reply)
            cmsal_bus_free(errorName)
            cmsal_bus_free(errorMessage)
        }
        let microseconds = UInt64(max(0.001, timeout) * 1_000_000)
        let status = cmsal_bus_call_sss(
            bus, destination, path, interface, member, arguments.0, arguments.1, arguments.2, microseconds,
            &reply, &errorName, &errorMessage)
        if let errorName {
            let name = String(cString: errorName)
            // sd-bus reports its own deadline as this error too.
            if status == -ETIMEDOUT && name == "org.freedesktop.DBus.Error.Timeout" { throw .timeout }
            throw .error(name: name, message: errorMessage.map { String(cString: $0) } ?? "")
        }
        if status == -ETIMEDOUT { throw .timeout }
        guard status >= 0, let reply else { throw .call(status < 0 ? -status : EBADMSG) }
        return String(cString: reply)
    }
}
