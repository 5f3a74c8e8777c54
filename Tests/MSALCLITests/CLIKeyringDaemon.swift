import Foundation
import XCTest

/// A desktop keyring for the `msal` binary under test: a private D-Bus session bus (a unix socket
/// in a temporary folder, no service activation) and a `gnome-keyring-daemon` on it whose login
/// keyring is created and unlocked with a test password. The tool is pointed at it with
/// ``environment``. Both processes are stopped by their process id in ``stop()``.
///
/// Without dbus-daemon or gnome-keyring-daemon the test is skipped, unless
/// `MSAL_REQUIRE_SECRET_SERVICE=1` (scripts/test.sh) makes that a failure.
final class CLIKeyringDaemon {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let folder: URL
    let address: String
    private let bus: Process
    private var keyring: Process?

    /// `DBUS_SESSION_BUS_ADDRESS` for the tool.
    var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

    init() throws {
        let dbusDaemon = try Self.tool("dbus-daemon")
        let keyringDaemon = try Self.tool("gnome-keyring-daemon")
        folder = URL(fileURLWithPath: "/tmp").appendingPathComponent("msal-cli-bus-\(UUID().uuidString.prefix(8))")
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
        let configurationFile = folder.appendingPathComponent("bus.conf")
        try Data(configuration.utf8).write(to: configurationFile)
        bus = Process()
        bus.executableURL = URL(fileURLWithPath: dbusDaemon)
        bus.arguments = ["--nofork", "--nopidfile", "--config-file=\(configurationFile.path)"]
        bus.standardOutput = FileHandle.nullDevice
        bus.standardError = FileHandle.nullDevice
        try bus.run()
        do {
            try waitUntil("dbus-daemon listens on \(socket)") { FileManager.default.fileExists(atPath: socket) }
            try startKeyring(keyringDaemon)
        } catch {
            stop()
            throw error
        }
    }

    private func startKeyring(_ daemon: String) throws {
        let home = folder.appendingPathComponent("home")
        let runtime = folder.appendingPathComponent("run")
        let data = home.appendingPathComponent("data")
        for sub in [home, runtime, data, home.appendingPathComponent("config"), home.appendingPathComponent("cache")] {
            try FileManager.default.createDirectory(
                at: sub, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: daemon)
        process.arguments = ["--foreground", "--unlock", "--components=secrets"]
        process.environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": home.path,
            "XDG_DATA_HOME": data.path,
            "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
            "XDG_CACHE_HOME": home.appendingPathComponent("cache").path,
            "XDG_RUNTIME_DIR": runtime.path,
            "DBUS_SESSION_BUS_ADDRESS": address,
        ]
        let input = Pipe()
        process.standardInput = input
        let log = folder.appendingPathComponent("keyring.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let logHandle = try FileHandle(forWritingTo: log)
        process.standardOutput = logHandle
        process.standardError = logHandle
        try process.run()
        try logHandle.close()
        keyring = process
        // --unlock reads the login keyring's password until the end of its input.
        input.fileHandleForWriting.write(Data("msal-cli-test-password".utf8))
        try input.fileHandleForWriting.close()
        let said = { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        try waitUntil("gnome-keyring-daemon owns org.freedesktop.secrets (its output: \(said()))") {
            guard process.isRunning else { return false }
            return (try? self.nameHasOwner("org.freedesktop.secrets")) == true
        }
    }

    /// Whether something owns `name` on the bus (dbus-send).
    private func nameHasOwner(_ name: String) throws -> Bool {
        let send = Process()
        send.executableURL = URL(fileURLWithPath: try Self.tool("dbus-send"))
        send.arguments = [
            "--bus=\(address)", "--print-reply=literal", "--reply-timeout=2000", "--dest=org.freedesktop.DBus",
            "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner", "string:\(name)",
        ]
        let output = Pipe()
        send.standardOutput = output
        send.standardError = FileHandle.nullDevice
        try send.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        send.waitUntilExit()
        return send.terminationStatus == 0 && String(decoding: data, as: UTF8.self).contains("true")
    }

    private func waitUntil(_ what: @autoclosure () -> String, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(15)
        while !condition() {
            guard bus.isRunning else { throw Failure(description: "dbus-daemon exited with \(bus.terminationStatus)") }
            guard Date() < deadline else { throw Failure(description: "not within 15 s: \(what())") }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Stops the keyring daemon and the bus (by their process ids) and removes the folder.
    func stop() {
        for process in [keyring, bus].compactMap({ $0 }) where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// The path of the program `name`, or a skip (a failure with MSAL_REQUIRE_SECRET_SERVICE=1).
    static func tool(_ name: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for folder in path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/sbin", "/bin"] {
            let candidate = folder + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        let message = "\(name) is not installed (scripts/install-deps.sh installs dbus and gnome-keyring)"
        if ProcessInfo.processInfo.environment["MSAL_REQUIRE_SECRET_SERVICE"] == "1" {
            throw Failure(description: message + "; MSAL_REQUIRE_SECRET_SERVICE=1 makes this a failure")
        }
        throw XCTSkip(message)
    }
}
