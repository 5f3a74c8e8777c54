import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// Processes sharing one cache file and needing the same refresh send one token request: the
/// first redeems the refresh token under the refresh lock; the others wait, re-read the file and
/// find the new access token.
final class CrossProcessRefreshTests: XCTestCase {
    /// The worker: runs only when started by the test below (the test bundle run again).
    func testWorkerEntryPoint() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let path = environment["MSAL_REFRESH_WORKER_CACHE"], let caFile = environment["MSAL_REFRESH_WORKER_CA"],
            let connectTo = environment["MSAL_REFRESH_WORKER_CONNECT_TO"]
        else { return }
        let config = MSALPublicClientApplicationConfig(clientId: EmulatorClient.sample.clientId)
        config.certificateAuthorityFile = caFile
        config.cacheConfig.cacheFileURL = URL(fileURLWithPath: path)
        config.connectTo = connectTo.split(separator: ",").map(String.init)
        let application = try MSALPublicClientApplication(configuration: config)
        let account = try XCTUnwrap(try application.allAccounts().first)
        let result = try await application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
        print("TOKEN \(result.accessToken.suffix(12))")
    }

    func testSixProcessesNeedingTheSameRefreshSendOneRequest() async throws {
        let emulator = try EmulatedApp.makeEmulator()
        defer { emulator.stop() }
        var lifetimes = emulator.lifetimes
        lifetimes.accessToken = 100  // inside the 300 s expiry buffer: expired as soon as cached
        emulator.lifetimes = lifetimes
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("msal-xproc-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cache.json")
        let app = try EmulatedApp(emulator: emulator) { config in
            config.cacheConfig.inMemoryOnly = false
            config.cacheConfig.cacheFileURL = file
        }
        // Sign in and warm the discovery cache (persisted in the file for the workers).
        let signedIn = try await app.signIn()
        lifetimes.accessToken = 3600  // the refreshed token is good for the processes that wait
        emulator.lifetimes = lifetimes
        let before = emulator.tokenRequestCount(grantType: .refreshToken)

        let workers = try (0..<6).map { _ in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["MSALIntegrationTests.CrossProcessRefreshTests/testWorkerEntryPoint"]
            var environment = ProcessInfo.processInfo.environment
            environment["MSAL_REFRESH_WORKER_CACHE"] = file.path
            environment["MSAL_REFRESH_WORKER_CA"] = emulator.certificateAuthority.certificateFile
            environment["MSAL_REFRESH_WORKER_CONNECT_TO"] = emulator.connectTo.joined(separator: ",")
            process.environment = environment
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            return (process, output)
        }
        var tokens = Set<String>()
        for (process, output) in workers {
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0, text)
            for line in text.split(separator: "\n") where line.hasPrefix("TOKEN ") { tokens.insert(String(line)) }
        }
        XCTAssertEqual(tokens.count, 1, "every process got the same new token: \(tokens)")
        XCTAssertFalse(tokens.contains("TOKEN \(signedIn.accessToken.suffix(12))"))
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken) - before, 1)
    }
}
