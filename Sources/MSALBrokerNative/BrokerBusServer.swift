import CMSALBrokerBus
import Glibc

/// The serving side of ``BrokerBus``, for an emulated broker: one connection that owns a name and
/// receives method calls on the thread that calls ``nextCall(timeout:)``. Not for several
/// threads at once: sd-bus connections are not thread-safe.
package final class BrokerBusServer {
    private let bus: OpaquePointer

    /// Connects to the bus at `address` and takes `name`.
    package init(address: String, name: String) throws(BrokerBus.Failure) {
        try BrokerBus.loadLibrary()
        var opened: OpaquePointer?
        let status = cmsal_bus_open(address, &opened)
        guard status >= 0, let opened else { throw .connect(-status) }
        let requested = cmsal_bus_request_name(opened, name)
        guard requested >= 0 else {
            cmsal_bus_close(opened)
            throw .call(-requested)
        }
        bus = opened
    }

    deinit { cmsal_bus_close(bus) }

    /// The next method call, or `nil` when none came within `timeout` seconds (or earlier).
    package func nextCall(timeout: Double) throws(BrokerBus.Failure) -> IncomingCall? {
        var message: OpaquePointer?
        let status = cmsal_bus_next_call(bus, UInt64(max(0, timeout) * 1_000_000), &message)
        guard status >= 0 else { throw .call(-status) }
        guard status == 1, let message else { return nil }
        return IncomingCall(message)
    }

    /// One method call received; answer it at most once, on the serving thread.
    package final class IncomingCall {
        private let message: OpaquePointer
        /// The method's name.
        package let member: String
        /// The interface named by the call (empty when none).
        package let interface: String
        /// The object path called.
        package let path: String
        /// The three string arguments, or `nil` when the call's signature is not `(sss)`.
        package let arguments: (String, String, String)?

        init(_ message: OpaquePointer) {
            self.message = message
            member = cmsal_bus_message_member(message).map { String(cString: $0) } ?? ""
            interface = cmsal_bus_message_interface(message).map { String(cString: $0) } ?? ""
            path = cmsal_bus_message_path(message).map { String(cString: $0) } ?? ""
            var first: UnsafePointer<CChar>?
            var second: UnsafePointer<CChar>?
            var third: UnsafePointer<CChar>?
            if cmsal_bus_message_read_sss(message, &first, &second, &third) >= 0, let first, let second, let third {
                arguments = (String(cString: first), String(cString: second), String(cString: third))
            } else {
                arguments = nil
            }
        }

        deinit { cmsal_bus_message_unref(message) }

        /// Answers with one string.
        package func reply(_ text: String) {
            _ = cmsal_bus_reply_string(message, text)
        }

        /// Answers with the D-Bus error `name`.
        package func replyError(name: String, message text: String) {
            _ = cmsal_bus_reply_error(message, name, text)
        }
    }
}
