import Foundation
import MSALBrokerNative

/// A D-Bus bus of a test's own: a `dbus-daemon` listening on a unix socket in a new temporary
/// folder, allowing this user everything and activating no service (nothing starts that the test
/// did not start). Each test may start one, so parallel tests share no bus.
///
/// ```swift
/// let bus = try PrivateDBus()
/// defer { bus.stop() }
/// let broker = try EmulatedBroker(emulator: emulator, busAddress: bus.address)
/// ```
public final class PrivateDBus: Sendable {
    /// The bus's D-Bus address (`unix:path=...`).
    public let address: String
    private let folder: URL
    private let process: Process

    /// Starts `dbus-daemon` (from `PATH`, or `/usr/bin`) and waits until its socket exists.
    ///
    /// - Throws: ``TestSupportError`` when dbus-daemon is missing, exits, or is not ready within
    ///   10 seconds.
    public init() throws {
        let candidates =
            (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/dbus-daemon" }
            + ["/usr/bin/dbus-daemon"]
        guard let daemon = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw TestSupportError("dbus-daemon is not installed (Debian: the dbus package)")
        }
        folder = URL(fileURLWithPath: "/tmp").appendingPathComponent("msal-dbus-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let socket = folder.appendingPathComponent("bus").path
        address = "unix:path=\(socket)"
        let configuration = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>\(address)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*"/>
                <allow receive_sender="*"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        let file = folder.appendingPathComponent("bus.conf")
        try Data(configuration.utf8).write(to: file)
        process = Process()
        process.executableURL = URL(fileURLWithPath: daemon)
        process.arguments = ["--nofork", "--nopidfile", "--config-file=\(file.path)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        // Ready when a connection is accepted: the socket file appears when it is bound, a moment
        // before the daemon listens on it.
        while !(FileManager.default.fileExists(atPath: socket) && Self.accepts(address)) {
            guard process.isRunning else {
                try? FileManager.default.removeItem(at: folder)
                throw TestSupportError("dbus-daemon exited with \(process.terminationStatus)")
            }
            guard Date() < deadline else {
                stop()
                throw TestSupportError("dbus-daemon did not listen within 10 s")
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    /// Whether the bus at `address` accepts a connection and answers (any answer, an error too).
    private static func accepts(_ address: String) -> Bool {
        do {
            _ = try BrokerBus.call(
                address: address, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                interface: "org.freedesktop.DBus.Peer", member: "Ping", arguments: ("", "", ""), timeout: 1)
            return true
        } catch {
            if case .connect = error { return false }
            return true
        }
    }

    /// Freezes the daemon (SIGSTOP): connections to the bus are accepted by the kernel, but no
    /// handshake and no call is answered, as with a bus daemon that hangs.
    public func suspend() {
        if process.isRunning { ProcessSignal.suspend(process.processIdentifier) }
    }

    /// Lets a frozen daemon run again.
    public func resume() {
        if process.isRunning { ProcessSignal.resume(process.processIdentifier) }
    }

    /// Stops the daemon (this one only, by its process id) and removes its folder.
    public func stop() {
        if process.isRunning {
            // By SIGKILL: a daemon started from a thread of the concurrency pool has SIGTERM blocked.
            ProcessSignal.kill(process.processIdentifier)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: folder)
    }

    deinit { stop() }
}
