import Foundation
import MSALTestSupport
import XCTest

/// An emulator in the test process and a temporary folder (cache file, browser script): the
/// environment that points the `msal` binary at the emulator.
final class CLITestEnvironment {
    let emulator: EntraEmulator
    let directory: URL
    let clientId = EmulatorClient.sample.clientId

    static let signingKey: EmulatorSigningKey? = try? EmulatorSigningKey()

    init(configure: (inout EntraEmulator.Configuration) -> Void = { _ in }) throws {
        var configuration = EntraEmulator.Configuration(signingKey: Self.signingKey)
        configuration.deviceCodeInterval = 1
        configure(&configuration)
        emulator = try EntraEmulator(configuration: configuration)
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "msal-cli-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // A copy of the CA certificate, which outlives the emulator: a test that stops it to
        // see the network fail keeps the same trust (stop() removes the emulator's own file).
        caFile = directory.appendingPathComponent("emulator-ca.pem").path
        try FileManager.default.copyItem(atPath: emulator.certificateAuthority.certificateFile, toPath: caFile)
    }

    /// The emulator's CA certificate, as the commands are told to trust it.
    let caFile: String

    func tearDown() {
        emulator.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The cache file the commands share.
    var cacheFile: String { directory.appendingPathComponent("msal_cache.json").path }

    /// `MSAL_CLIENT_ID`, `MSAL_CA_FILE`, `MSAL_CONNECT_TO`, `MSAL_CACHE` and a private `HOME`
    /// (and, from ``CLIProcess/environment(_:)``, `MSAL_CACHE_BACKEND=plaintext`).
    var environment: [String: String] {
        [
            "MSAL_CLIENT_ID": clientId,
            "MSAL_CA_FILE": caFile,
            "MSAL_CONNECT_TO": emulator.connectTo.joined(separator: ","),
            "HOME": directory.path,
        ]
    }

    /// A folder holding a `libsecret-1.so.0` and a `libkeyutils.so.1` that are text files, not
    /// libraries ("file too short"): with it first on `LD_LIBRARY_PATH`, as on a machine where the
    /// keyring libraries are broken, neither keyring can be used. (libcurl needs libkeyutils too,
    /// through Kerberos: with this folder no request can be sent either.)
    func brokenKeyringLibraries() throws -> [String: String] {
        let folder = directory.appendingPathComponent("broken-keyring-libraries")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["libsecret-1.so.0", "libkeyutils.so.1"] {
            try Data("not a shared library\n".utf8).write(to: folder.appendingPathComponent(name))
        }
        return ["LD_LIBRARY_PATH": folder.path]
    }

    /// Runs `msal arguments --cache <file>` with ``environment`` (plus `extra`).
    func run(
        _ arguments: [String], extra: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line
    ) throws -> CLIProcess.Result {
        try CLIProcess.run(
            arguments + ["--cache", cacheFile], environment: environment.merging(extra) { $1 }, file: file, line: line)
    }

    /// Starts `msal arguments --cache <file>` without waiting for it.
    func start(_ arguments: [String], extra: [String: String] = [:]) throws -> CLIProcess {
        try CLIProcess(arguments + ["--cache", cacheFile], environment: environment.merging(extra) { $1 })
    }

    /// `msal login --device-code arguments`, approving the code (read on standard error) as
    /// `username`; returns what the login did.
    func deviceCodeLogin(
        as username: String, _ arguments: [String] = [], extra: [String: String] = [:],
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> CLIProcess.Result {
        let login = try start(["login", "--device-code", "--scopes", "User.Read"] + arguments, extra: extra)
        guard let userCode = try login.waitForOutput("enter the code ([A-Z0-9]+)", inErrorOutput: true) else {
            return login.finish(file: file, line: line)
        }
        try emulator.approveDeviceCode(userCode: userCode, as: username)
        return login.finish(file: file, line: line)
    }

    /// Runs `command` (a shell command line) under `script(1)`, which gives it a terminal as
    /// standard input, output and error; returns the exit status and everything the terminal showed.
    func runInTerminal(_ command: String, extra: [String: String] = [:], timeout: TimeInterval = 30) throws -> (
        status: Int32, output: String
    ) {
        let script = "/usr/bin/script"
        guard FileManager.default.isExecutableFile(atPath: script) else { throw XCTSkip("script is not installed") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        process.arguments = ["-qec", command, "/dev/null"]
        process.environment = CLIProcess.environment(environment.merging(extra) { $1 })
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        let box = DataBox()
        let reader = Thread { box.set(pipe.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning {
            process.terminate()
            XCTFail("\(command) still running after \(timeout) s")
        }
        process.waitUntilExit()
        let output = box.waitForData()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    /// What the reader thread read, handed over under a lock (which also orders the two threads
    /// for ThreadSanitizer, as polling `Thread.isFinished` does not).
    private final class DataBox: @unchecked Sendable {
        // @unchecked: `data` is only touched while `condition` is locked.
        private let condition = NSCondition()
        private var data: Data?

        func set(_ value: Data) {
            condition.lock()
            data = value
            condition.signal()
            condition.unlock()
        }

        func waitForData() -> Data {
            condition.lock()
            defer { condition.unlock() }
            while data == nil { condition.wait() }
            return data ?? Data()
        }
    }

    /// A `$BROWSER` script that plays the user's browser: fetches the sign-in URL with curl
    /// (trusting the emulator's CA, its host names sent to it), follows the redirects and submits
    /// the emulator's form_post page to the loopback listener.
    func browserScript() throws -> String {
        let curl = "/usr/bin/curl"
        guard FileManager.default.isExecutableFile(atPath: curl) else { throw XCTSkip("curl is not installed") }
        let script = directory.appendingPathComponent("browser")
        let text = ScriptedBrowser.curlScript(
            curl: curl, caFile: emulator.certificateAuthority.certificateFile, connectTo: emulator.connectTo,
            urlFile: directory.appendingPathComponent("browser.url").path)
        try Data(text.utf8).write(to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: script.path)
        return script.path
    }
}
