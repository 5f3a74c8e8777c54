import Foundation
import XCTest

/// The built `msal` binary, run as a separate process with its own environment; standard output
/// and error are collected as they stream.
final class CLIProcess: @unchecked Sendable {
    // @unchecked: the buffers are behind `lock`; `process` is only used by the test's thread.
    struct Result {
        var status: Int32
        var output: String
        var errorOutput: String
    }

    private let process = Process()
    private let outputPipe = Pipe()
    private let errorPipe = Pipe()
    private let lock = NSLock()
    private var output = Data()
    private var errorOutput = Data()

    /// The `msal` executable next to the test bundle (the build products directory).
    static func executable() throws -> URL {
        let candidates = [
            Bundle.main.bundleURL,
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
        ]
        for directory in candidates {
            let url = directory.appendingPathComponent("msal")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw XCTSkip("the msal executable was not built next to the tests (looked in \(candidates.map(\.path)))")
    }

    /// The environment of the tool: this process's without any MSAL_* or BROWSER, with
    /// `MSAL_CACHE_BACKEND=plaintext`, plus `extra`. The tests of everything but the choice of key
    /// store keep the plaintext file, whatever keyrings the machine offers (and leave no key in
    /// the user's kernel keyring); a test of the choice passes `MSAL_CACHE_BACKEND: ""` in `extra`,
    /// which unsets it.
    static func environment(_ extra: [String: String]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter {
            !$0.key.hasPrefix("MSAL_") && $0.key != "BROWSER"
        }
        environment["MSAL_CACHE_BACKEND"] = "plaintext"
        environment.merge(extra) { $1 }
        return environment
    }

    /// Starts `msal arguments`.
    init(_ arguments: [String], environment: [String: String]) throws {
        process.executableURL = try Self.executable()
        process.arguments = arguments
        process.environment = Self.environment(environment)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        outputPipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            self?.append(data, error: false)
        }
        errorPipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            self?.append(data, error: true)
        }
        try process.run()
    }

    private func append(_ data: Data, error: Bool) {
        lock.lock()
        defer { lock.unlock() }
        if error { errorOutput.append(data) } else { output.append(data) }
    }

    /// Standard output so far.
    var currentOutput: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: output, as: UTF8.self)
    }

    /// Standard error so far.
    var currentErrorOutput: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: errorOutput, as: UTF8.self)
    }

    /// Waits until standard output (or standard error) matches `pattern` (a regular expression) and
    /// returns its first capture group (or the whole match); `nil` after `timeout` seconds or when
    /// the process ended.
    func waitForOutput(_ pattern: String, timeout: TimeInterval = 10, inErrorOutput: Bool = false) throws -> String? {
        let regex = try NSRegularExpression(pattern: pattern)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let text = inErrorOutput ? currentErrorOutput : currentOutput
            if let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) {
                let range = match.numberOfRanges > 1 ? match.range(at: 1) : match.range
                return Range(range, in: text).map { String(text[$0]) }
            }
            if !process.isRunning { return nil }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return nil
    }

    /// Sends `signal` to the process.
    func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits for the process to end (terminating it after `timeout` seconds) and returns what it did.
    func finish(timeout: TimeInterval = 30, file: StaticString = #filePath, line: UInt = #line) -> Result {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning {
            XCTFail("msal \(process.arguments ?? []) still running after \(timeout) s", file: file, line: line)
            process.terminate()
        }
        process.waitUntilExit()
        for (pipe, isError) in [(outputPipe, false), (errorPipe, true)] {
            pipe.fileHandleForReading.readabilityHandler = nil
            append(pipe.fileHandleForReading.readDataToEndOfFile(), error: isError)
        }
        lock.lock()
        defer { lock.unlock() }
        return Result(
            status: process.terminationStatus, output: String(decoding: output, as: UTF8.self),
            errorOutput: String(decoding: errorOutput, as: UTF8.self))
    }

    /// Runs `msal arguments` to the end.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 30,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> Result {
        try CLIProcess(arguments, environment: environment).finish(timeout: timeout, file: file, line: line)
    }
}
