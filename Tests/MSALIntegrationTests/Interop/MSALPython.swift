import Foundation
import XCTest

/// The real MSAL for Python (`msal` from PyPI), in the virtualenv `scripts/interop.sh` makes, and
/// `Tests/Interop/msal_interop.py`, which drives it.
///
/// Found at `$MSAL_INTEROP_VENV`, else `.build-interop/venv` in the package. When `msal` is not
/// importable there, the first test runs `scripts/interop.sh --setup-only` (when `python3` has pip
/// and venv); when that is impossible the tests skip, or fail when `MSAL_REQUIRE_INTEROP=1`.
struct MSALPython: Sendable {
    let python: URL
    let script: URL

    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    private static let located: Result<MSALPython, SetupProblem> = locate()

    struct SetupProblem: Error, Sendable, CustomStringConvertible {
        var description: String
    }

    /// The interpreter with `msal` importable; skips or fails the test when there is none.
    static func require(file: StaticString = #filePath, line: UInt = #line) throws -> MSALPython {
        switch located {
        case .success(let python): return python
        case .failure(let problem):
            if ProcessInfo.processInfo.environment["MSAL_REQUIRE_INTEROP"] == "1" {
                XCTFail("MSAL_REQUIRE_INTEROP=1 but \(problem)", file: file, line: line)
                throw problem
            }
            throw XCTSkip("MSAL for Python is not available: \(problem)")
        }
    }

    private static func locate() -> Result<MSALPython, SetupProblem> {
        let environment = ProcessInfo.processInfo.environment
        let venv =
            environment["MSAL_INTEROP_VENV"].map { URL(fileURLWithPath: $0) }
            ?? packageRoot.appendingPathComponent(".build-interop/venv")
        let python = MSALPython(
            python: venv.appendingPathComponent("bin/python"),
            script: packageRoot.appendingPathComponent("Tests/Interop/msal_interop.py"))
        if python.hasMSAL { return .success(python) }

        let system = environment["MSAL_INTEROP_PYTHON"] ?? "python3"
        guard (try? run(["/usr/bin/env", system, "-c", "import pip, venv"]))?.status == 0 else {
            return .failure(
                SetupProblem(description: "msal is not installed in \(venv.path), and \(system) has no pip"))
        }
        let started = Date()
        let setup = packageRoot.appendingPathComponent("scripts/interop.sh").path
        guard let result = try? run([setup, "--setup-only"]), result.status == 0 else {
            return .failure(SetupProblem(description: "scripts/interop.sh --setup-only failed"))
        }
        print(String(format: "MSAL for Python set up in %.1f s: %@", Date().timeIntervalSince(started), result.stdout))
        guard python.hasMSAL else {
            return .failure(SetupProblem(description: "msal is still not importable from \(python.python.path)"))
        }
        return .success(python)
    }

    private var hasMSAL: Bool {
        FileManager.default.isExecutableFile(atPath: python.path)
            && (try? Self.run([python.path, "-c", "import msal"]))?.status == 0
    }

    /// Runs `msal_interop.py arguments` and returns the JSON object it prints.
    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> [String: Any] {
        let result = try Self.run([python.path, script.path] + arguments, environment: environment)
        guard result.status == 0 else {
            throw SetupProblem(
                description: "msal_interop.py \(arguments.first ?? "") exited \(result.status): \(result.stderr)")
        }
        guard let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else {
            throw SetupProblem(description: "msal_interop.py printed no JSON object: \(result.stdout)")
        }
        return object
    }

    /// Runs a program (output through files, so a full pipe never blocks it), at most 120 s.
    static func run(_ command: [String], environment: [String: String] = [:]) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("msal-python-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("stdout")
        let err = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.currentDirectoryURL = packageRoot
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        let deadline = Date().addingTimeInterval(120)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        return (
            process.terminationStatus, (try? String(contentsOf: out, encoding: .utf8)) ?? "",
            (try? String(contentsOf: err, encoding: .utf8)) ?? ""
        )
    }
}
