import Foundation
import MSALTestSupport
import XCTest

/// The script recipes of Docs/CLI.md (the ```sh blocks after `<!-- recipe: NAME -->`), run as
/// written by bash with `msal` on the PATH and pointed at the emulator.
final class CLIRecipeTests: XCTestCase {
    private var environment: CLITestEnvironment!

    override func setUpWithError() throws {
        environment = try CLITestEnvironment()
    }

    override func tearDown() {
        environment?.tearDown()
    }

    /// The recipes of Docs/CLI.md by name.
    static func recipes() throws -> [String: String] {
        let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Docs/CLI.md")
        let text = try String(contentsOf: document, encoding: .utf8)
        let pattern = try NSRegularExpression(
            pattern: "<!-- recipe: ([a-z-]+) -->\\n```sh\\n(.*?)\\n```", options: [.dotMatchesLineSeparators])
        var recipes: [String: String] = [:]
        for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            guard let name = Range(match.range(at: 1), in: text), let body = Range(match.range(at: 2), in: text) else {
                continue
            }
            recipes[String(text[name])] = String(text[body])
        }
        return recipes
    }

    /// Runs `recipe` with bash; returns its status and standard output (standard error appended
    /// to the failure messages).
    private func run(_ recipe: String, extra: [String: String] = [:]) throws -> (
        status: Int32, output: String, error: String
    ) {
        let msal = try CLIProcess.executable()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", recipe]
        var variables = environment.environment.merging(extra) { $1 }
        variables["MSAL_CACHE"] = environment.cacheFile
        variables["PATH"] =
            msal.deletingLastPathComponent().path + ":"
            + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        process.environment = CLIProcess.environment(variables)
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: outputData, as: UTF8.self),
            String(decoding: errorData, as: UTF8.self)
        )
    }

    func testEveryRecipeRunsAsWritten() throws {
        let recipes = try Self.recipes()
        XCTAssertEqual(
            Set(recipes.keys), ["exit-codes", "device-code", "tsv", "rest"], "each recipe has its checks here")
        let browser = try environment.browserScript()

        // Exit code 3 on the first run: the recipe signs in (browser), then gets the token.
        let exitCodes = try XCTUnwrap(recipes["exit-codes"])
        let first = try run(exitCodes, extra: ["BROWSER": browser])
        XCTAssertEqual(first.status, 0, first.error)
        XCTAssertTrue(first.output.hasPrefix("got a token of "), first.output + first.error)
        XCTAssertEqual(environment.emulator.signIns.count, 1)
        XCTAssertTrue(first.error.contains("Signed in as \(EmulatorUser.alice.username)"), first.error)
        let second = try run(exitCodes, extra: ["BROWSER": "/nonexistent/browser"])
        XCTAssertEqual(second.status, 0, second.error)
        XCTAssertEqual(second.output, first.output, "the same token, from the cache")
        environment.emulator.stop()
        let offline = try run(exitCodes.replacingOccurrences(of: "--timeout 60", with: "--timeout 60 --force-refresh"))
        XCTAssertEqual(offline.status, 1, "the 4|7|124 branch: \(offline.error)")
        XCTAssertTrue(offline.error.contains("try again later"), offline.error)
    }

    func testDeviceCodeAndTSVRecipes() throws {
        let recipes = try Self.recipes()
        let emulator = environment.emulator
        let approver = Thread {
            while !Thread.current.isCancelled {
                for code in emulator.pendingUserCodes {
                    _ = try? emulator.approveDeviceCode(userCode: code, as: EmulatorUser.bob.username)
                }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        approver.start()
        defer { approver.cancel() }
        let deviceCode = try run(try XCTUnwrap(recipes["device-code"]))
        XCTAssertEqual(deviceCode.status, 0, deviceCode.error)
        XCTAssertEqual(deviceCode.output, "signed in as the default account\n", deviceCode.error)
        XCTAssertTrue(deviceCode.error.contains("enter the code"), "the code is shown: \(deviceCode.error)")
        XCTAssertTrue(deviceCode.error.contains("Default account: \(EmulatorUser.bob.username)"), deviceCode.error)

        let tsv = try run(try XCTUnwrap(recipes["tsv"]))
        XCTAssertEqual(tsv.status, 0, tsv.error)
        XCTAssertTrue(
            tsv.output.hasPrefix("Bearer token for tenant \(EmulatorTenant.contoso.id), valid until 20"), tsv.output)
    }

    func testRestRecipe() throws {
        let recipe = try XCTUnwrap(try Self.recipes()["rest"])
        let resource = try EmulatedProtectedResource(emulator: environment.emulator, hostNames: ["graph.microsoft.com"])
        defer { resource.stop() }
        let routes = [
            "MSAL_CONNECT_TO": (environment.emulator.connectTo + resource.connectTo).joined(separator: ","),
            "BROWSER": try environment.browserScript(),
        ]
        // Signs in first (no account yet), then calls Microsoft Graph.
        let first = try run(recipe, extra: routes)
        XCTAssertEqual(first.status, 0, first.error)
        XCTAssertEqual(first.output, "Microsoft Graph knows you as \(EmulatorUser.alice.username)\n", first.error)
        XCTAssertEqual(environment.emulator.signIns.count, 1)
        XCTAssertEqual(resource.acceptedRequests, 1)

        // The API refuses every token: the recipe's exit code 8 branch.
        resource.requireTokens(issuedAtOrAfter: environment.emulator.now.addingTimeInterval(86_400))
        let refused = try run(recipe, extra: routes)
        XCTAssertEqual(refused.status, 1, refused.error)
        XCTAssertTrue(refused.error.contains("Microsoft Graph refused the call: {"), refused.error)
        XCTAssertEqual(environment.emulator.signIns.count, 1, "no second sign-in")
    }
}
