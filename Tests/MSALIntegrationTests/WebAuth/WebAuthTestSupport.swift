import Foundation
import MSALTestSupport
import XCTest

@testable import MSAL

/// Runs the system `curl` on a thread of its own (not the cooperative pool, which the code under
/// test needs) and returns its result.
func curlInBackground(_ arguments: [String]) async throws -> CurlCommand.Result {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try CurlCommand.run(arguments) })
        }
        thread.start()
    }
}

/// `curl` fetching `url`, printing the body then `\n<status>` on its own line.
func fetch(_ url: String, method: String = "GET") async throws -> (status: Int, body: String, exitCode: Int32) {
    let result = try await curlInBackground(["-g", "-X", method, "-w", "\n%{http_code}", url])
    let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
    let status = Int(lines.last ?? "") ?? 0
    return (status, lines.dropLast().joined(separator: "\n"), result.exitCode)
}

/// A temporary directory removed by `cleanup()`.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("msal-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Writes an executable shell script and returns its path.
    func script(_ name: String, _ body: String) throws -> String {
        let path = url.appendingPathComponent(name).path
        guard
            FileManager.default.createFile(
                atPath: path, contents: Data(("#!/bin/sh\n" + body).utf8), attributes: [.posixPermissions: 0o755])
        else { throw XCTSkip("cannot write \(path)") }
        return path
    }

    func cleanup() {
        try? FileManager.default.removeItem(at: url)
    }
}
