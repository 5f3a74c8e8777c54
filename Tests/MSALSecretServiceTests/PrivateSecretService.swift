import Foundation
import Glibc
import MSALSecretServiceNative
import XCTest

/// A Secret Service of the tests' own: a private D-Bus session bus (one per test process, on a
/// unix socket in a temporary folder, with no service activation, so nothing starts that a test
/// did not start) and, per test, a `gnome-keyring-daemon` whose login keyring lives in a
/// temporary folder and is created and unlocked with a test password.
///
/// The test process is pointed at the bus (`DBUS_SESSION_BUS_ADDRESS`) before libsecret first
/// connects. Only processes started here are stopped, by their process id: the keyring daemon at
/// the end of each test, the bus when the test bundle finishes.
///
/// Without the Debian packages (dbus, gnome-keyring) the tests are skipped, unless
/// `MSAL_REQUIRE_SECRET_SERVICE=1` (scripts/test.sh) makes that a failure; with them, a keyring
/// that cannot start fails the test.
enum SecretServiceFixture {
    /// The folder of the tools, or an error saying which is missing.
    static func tool(_ name: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for folder in path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/sbin", "/bin"] {
            let candidate = folder + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        let message =
            "\(name) is not installed (scripts/install-deps.sh installs dbus, gnome-keyring and libsecret-tools)"
        if ProcessInfo.processInfo.environment["MSAL_REQUIRE_SECRET_SERVICE"] == "1" {
            throw FixtureError(message + "; MSAL_REQUIRE_SECRET_SERVICE=1 makes this a failure")
        }
        throw XCTSkip(message)
    }

    /// Every tool the Secret Service tests use (skipped or failed as ``tool(_:)`` says).
    static func requireTools() throws {
        for name in ["dbus-daemon", "dbus-send", "gnome-keyring-daemon", "secret-tool"] {
            _ = try tool(name)
        }
    }

    struct FixtureError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Runs `tool` with `arguments` and `environment`, feeding `input`, and returns its exit status
    /// and output; killed (by its process id) when it has not ended within `timeout` seconds.
    @discardableResult
    static func run(
        _ tool: String, _ arguments: [String], environment: [String: String]? = nil, input: String? = nil,
        timeout: Double = 10
    ) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let stdin = Pipe()
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        let collected = Collected()
        let reader = Thread {
            collected.set(output.fileHandleForReading.readDataToEndOfFile())
        }
        reader.start()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw FixtureError("\(tool) \(arguments.joined(separator: " ")) did not end within \(timeout) s")
        }
        process.waitUntilExit()
        let text = String(decoding: collected.wait(), as: UTF8.self)
        return (process.terminationStatus, text)
    }

    /// Data handed from a reader thread.
    final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private let done = DispatchSemaphore(value: 0)
        private var data = Data()

        func set(_ value: Data) {
            lock.withLock { data = value }
            done.signal()
        }

        func wait() -> Data {
            _ = done.wait(timeout: .now() + 10)
            return lock.withLock { data }
        }
    }
}

/// The private session bus of this test process.
final class PrivateSessionBus: NSObject, XCTestObservation, @unchecked Sendable {
    let address: String
    let folder: URL
    private let process: Process
    private static let lock = NSLock()
    nonisolated(unsafe) private static var started: PrivateSessionBus?

    /// The bus, started at the first call (and the test process pointed at it).
    static func shared() throws -> PrivateSessionBus {
        try lock.withLock {
            if let started { return started }
            let bus = try PrivateSessionBus(starting: ())
            started = bus
            SecretServiceClient.useSessionBus(address: bus.address)
            XCTestObservationCenter.shared.addTestObserver(bus)
            return bus
        }
    }

    private init(starting: Void) throws {
        let daemon = try SecretServiceFixture.tool("dbus-daemon")
        _ = try SecretServiceFixture.tool("dbus-send")
        folder = URL(fileURLWithPath: "/tmp").appendingPathComponent("msal-bus-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let socket = folder.appendingPathComponent("bus").path
        address = "unix:path=\(socket)"
        // A session bus that lets this user do anything, listens on one unix socket, and activates
        // no service (no servicedir): a Secret Service is there only while a test runs one.
        let configuration = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>\(address)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        let configurationFile = folder.appendingPathComponent("bus.conf")
        try Data(configuration.utf8).write(to: configurationFile)
        process = Process()
        process.executableURL = URL(fileURLWithPath: daemon)
        process.arguments = ["--nofork", "--nopidfile", "--config-file=\(configurationFile.path)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        super.init()
        try process.run()
        // Ready when it answers on its socket.
        let deadline = Date().addingTimeInterval(10)
        while true {
            guard process.isRunning else {
                throw SecretServiceFixture.FixtureError("dbus-daemon exited with \(process.terminationStatus)")
            }
            if FileManager.default.fileExists(atPath: socket),
                let answer = try? bus(["org.freedesktop.DBus.GetId"]), answer.status == 0
            {
                break
            }
            guard Date() < deadline else {
                stop()
                throw SecretServiceFixture.FixtureError("dbus-daemon did not answer within 10 s")
            }
            usleep(20_000)
        }
    }

    /// Calls `method` (and its arguments) of the bus itself with dbus-send.
    func bus(_ method: [String]) throws -> (status: Int32, output: String) {
        try call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", method)
    }

    /// Calls a method with dbus-send on this bus.
    func call(destination: String, path: String, _ method: [String]) throws -> (status: Int32, output: String) {
        try SecretServiceFixture.run(
            try SecretServiceFixture.tool("dbus-send"),
            ["--bus=\(address)", "--print-reply=literal", "--reply-timeout=5000", "--dest=\(destination)", path]
                + method)
    }

    /// The process id of the owner of `name` on the bus, or `nil`.
    func owner(of name: String) -> Int32? {
        guard let answer = try? bus(["org.freedesktop.DBus.GetConnectionUnixProcessID", "string:\(name)"]),
            answer.status == 0
        else { return nil }
        return answer.output.split(whereSeparator: \.isWhitespace).last.flatMap { Int32($0) }
    }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: folder)
    }

    func testBundleDidFinish(_ testBundle: Bundle) {
        stop()
    }
}

/// A gnome-keyring-daemon serving the Secret Service on the private bus, with a login keyring of
/// its own (created and unlocked with ``password``).
final class KeyringDaemon {
    static let password = "msal-test-password"
    let bus: PrivateSessionBus
    let folder: URL
    let process: Process
    private let log: URL

    var pid: Int32 { process.processIdentifier }

    /// Starts the daemon and waits until it owns `org.freedesktop.secrets` on the bus.
    init() throws {
        try SecretServiceFixture.requireTools()
        bus = try PrivateSessionBus.shared()
        let daemon = try SecretServiceFixture.tool("gnome-keyring-daemon")
        // A daemon of an earlier test may still be leaving the bus.
        let clear = Date().addingTimeInterval(10)
        while bus.owner(of: "org.freedesktop.secrets") != nil {
            guard Date() < clear else {
                throw SecretServiceFixture.FixtureError("org.freedesktop.secrets is still owned by another process")
            }
            usleep(20_000)
        }
        folder = bus.folder.appendingPathComponent("keyring-\(UUID().uuidString.prefix(8))")
        let runtime = folder.appendingPathComponent("run")
        for sub in ["home", "data", "config", "cache"] {
            try FileManager.default.createDirectory(
                at: folder.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        try FileManager.default.createDirectory(
            at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        log = folder.appendingPathComponent("daemon.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: daemon)
        process.arguments = ["--foreground", "--unlock", "--components=secrets"]
        process.environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": folder.appendingPathComponent("home").path,
            "XDG_DATA_HOME": folder.appendingPathComponent("data").path,
            "XDG_CONFIG_HOME": folder.appendingPathComponent("config").path,
            "XDG_CACHE_HOME": folder.appendingPathComponent("cache").path,
            "XDG_RUNTIME_DIR": runtime.path,
            "DBUS_SESSION_BUS_ADDRESS": bus.address,
        ]
        let input = Pipe()
        process.standardInput = input
        let logHandle = try FileHandle(forWritingTo: log)
        process.standardOutput = logHandle
        process.standardError = logHandle
        try process.run()
        try logHandle.close()
        // --unlock reads the password until the end of its input.
        input.fileHandleForWriting.write(Data(Self.password.utf8))
        try input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(15)
        while bus.owner(of: "org.freedesktop.secrets") != process.processIdentifier {
            guard process.isRunning else {
                throw SecretServiceFixture.FixtureError(
                    "gnome-keyring-daemon exited with \(process.terminationStatus): \(logText)")
            }
            guard Date() < deadline else {
                stop()
                throw SecretServiceFixture.FixtureError(
                    "gnome-keyring-daemon did not own org.freedesktop.secrets within 15 s: \(logText)")
            }
            usleep(20_000)
        }
    }

    var logText: String {
        (try? String(contentsOf: log, encoding: .utf8)) ?? ""
    }

    /// Sends `signal` to the daemon (SIGSTOP to make it hang, SIGKILL to kill it mid-call).
    func signal(_ signal: Int32) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// Locks the default collection through the Secret Service's own `Lock` method (no prompt).
    func lockDefaultCollection() throws {
        let answer = try bus.call(
            destination: "org.freedesktop.secrets", path: "/org/freedesktop/secrets",
            ["org.freedesktop.Secret.Service.Lock", "array:objpath:/org/freedesktop/secrets/aliases/default"])
        guard answer.status == 0 else {
            throw SecretServiceFixture.FixtureError("locking the collection failed: \(answer.output)")
        }
    }

    /// Whether the default collection is locked, as the daemon says.
    func defaultCollectionIsLocked() throws -> Bool {
        let answer = try bus.call(
            destination: "org.freedesktop.secrets", path: "/org/freedesktop/secrets/aliases/default",
            ["org.freedesktop.DBus.Properties.Get", "string:org.freedesktop.Secret.Collection", "string:Locked"])
        guard answer.status == 0 else {
            throw SecretServiceFixture.FixtureError("reading Locked failed: \(answer.output)")
        }
        return answer.output.contains("true")
    }

    /// `secret-tool` with `arguments`, on the private bus.
    func secretTool(_ arguments: [String], input: String? = nil) throws -> (status: Int32, output: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        return try SecretServiceFixture.run(
            try SecretServiceFixture.tool("secret-tool"), arguments, environment: environment, input: input)
    }

    /// Stops the daemon (a stopped one too) and removes its folder.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: folder)
    }
}
