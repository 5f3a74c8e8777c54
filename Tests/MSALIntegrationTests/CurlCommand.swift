import Foundation
import XCTest

/// Runs the system `curl` (the libcurl transport of the library is tested elsewhere): a real,
/// independent HTTPS client for the loopback server.
struct CurlCommand {
    struct Result {
        var exitCode: Int32
        var output: String
        var errorOutput: String
    }

    static let path = "/usr/bin/curl"

    /// Runs `curl -sS --max-time 10 <arguments>` and collects its output.
    static func run(_ arguments: [String]) throws -> Result {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw XCTSkip("curl is not installed at \(path)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-sS", "--max-time", "10"] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // stderr is read on another thread so that neither pipe can fill up and block curl.
        let errorData = ErrorCollector(errors.fileHandleForReading)
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            exitCode: process.terminationStatus,
            output: String(decoding: outputData, as: UTF8.self),
            errorOutput: String(decoding: errorData.wait(), as: UTF8.self)
        )
    }

    /// Reads a file handle to its end on a background thread.
    private final class ErrorCollector: @unchecked Sendable {
        // @unchecked: `data` is written once on the reading thread before `done` is signalled,
        // and read only after waiting for `done`.
        private var data = Data()
        private let done = DispatchSemaphore(value: 0)

        init(_ handle: FileHandle) {
            Thread.detachNewThread { [self] in
                data = handle.readDataToEndOfFile()
                done.signal()
            }
        }

        func wait() -> Data {
            done.wait()
            return data
        }
    }
}
