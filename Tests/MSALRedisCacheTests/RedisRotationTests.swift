import Foundation
import MSALNative
import MSALRedisCache
import MSALRedisCacheNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// Eight processes standing for machines share one Redis cache while the emulator rotates refresh
/// tokens strictly (a replayed refresh token gets `invalid_grant`), for an hour of simulated time
/// on a test clock kept in Redis: every silent call of every machine succeeds, so nobody is signed
/// out, and the fleet refreshes once per expiry.
final class RedisRotationTests: XCTestCase {
    private static let clockKey = "test:clock"
    private static let doneKey = "test:done"

    /// The worker: runs only when started by the test below (the test bundle run again).
    func testWorkerEntryPoint() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let port = environment["MSAL_ROTATION_WORKER_PORT"].flatMap(Int.init),
            let id = environment["MSAL_ROTATION_WORKER_ID"], let caFile = environment["MSAL_ROTATION_WORKER_CA"],
            let connectTo = environment["MSAL_ROTATION_WORKER_CONNECT_TO"]
        else { return }
        let control = try RedisConnection(RedisEndpoint(host: "127.0.0.1", port: port), tls: nil)
        let offset = Locked(0.0)
        let application = try Self.application(
            port: port, caFile: caFile, connectTo: connectTo.split(separator: ",").map(String.init), offset: offset)
        let account = try XCTUnwrap(try application.allAccounts().first)
        var calls = 0
        var failures: [String] = []
        while true {
            let clock = try control.command("GET", Self.clockKey)
            guard case .bulk(let text) = clock, let step = Int(String(decoding: text, as: UTF8.self)) else { break }
            offset.withLock { $0 = Double(step) * 60 }
            do {
                _ = try await application.acquireTokenSilent(
                    with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
            } catch {
                failures.append("step \(step): \(MSALErrorInfo(error).errorDescription ?? "\(error)")")
            }
            calls += 1
            _ = try control.command("HSET", "test:seen", id, String(step))
            if try control.command("EXISTS", Self.doneKey) == .integer(1) { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        print("CALLS \(calls)")
        for failure in failures { print("FAILURE \(failure)") }
    }

    static func application(port: Int, caFile: String, connectTo: [String], offset: Locked<Double>) throws
        -> MSALPublicClientApplication
    {
        let config = MSALPublicClientApplicationConfig(
            clientId: EmulatorClient.sample.clientId, redirectUri: nil,
            authority: try MSALAuthority.authority(with: URL(string: "https://login.microsoftonline.com/common")!))
        config.certificateAuthorityFile = caFile
        config.connectTo = connectTo
        config.cacheConfig.customStorage = try MSALRedisCacheStorage(
            connection: MSALRedisConnectionConfig(host: "127.0.0.1", port: port), cacheName: "rotation")
        return try MSALPublicClientApplication(
            configuration: config, now: { Date().addingTimeInterval(offset.withLock { $0 }) })
    }

    func testEightMachinesRefreshingForAnHourUnderStrictRotationStaySignedIn() async throws {
        let server = try RedisServer()
        let control = try RedisConnection(server.endpoint(), tls: nil)
        let emulator = try EntraEmulator(
            configuration: EntraEmulator.Configuration(refreshTokenRotation: .rotateAndRevokeOld))
        defer { emulator.stop() }
        var lifetimes = emulator.lifetimes
        lifetimes.accessToken = 600  // due for refresh 5 minutes after it is issued (the 300 s buffer)
        emulator.lifetimes = lifetimes
        let caFile = emulator.certificateAuthority.certificateFile
        XCTAssertEqual(try control.command("SET", Self.clockKey, "0"), .status("OK"))
        let signer = try Self.application(
            port: server.port, caFile: caFile, connectTo: emulator.connectTo, offset: Locked(0))
        let webview = MSALWebviewParameters()
        webview.customWebview = ScriptedBrowser(configuration: .init(caFile: caFile, connectTo: emulator.connectTo))
        _ = try await signer.acquireToken(
            with: MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview))
        let before = emulator.tokenRequestCount(grantType: .refreshToken)

        let machines = 8
        let workers = try (0..<machines).map { id in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["MSALRedisCacheTests.RedisRotationTests/testWorkerEntryPoint"]
            var environment = ProcessInfo.processInfo.environment
            environment["MSAL_ROTATION_WORKER_PORT"] = String(server.port)
            environment["MSAL_ROTATION_WORKER_ID"] = String(id)
            environment["MSAL_ROTATION_WORKER_CA"] = caFile
            environment["MSAL_ROTATION_WORKER_CONNECT_TO"] = emulator.connectTo.joined(separator: ",")
            process.environment = environment
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            return (process, output)
        }
        // An hour in steps of a minute; each step waits until every machine made a call in it.
        for step in 1...60 {
            emulator.advanceClock(by: 60)
            _ = try control.command("SET", Self.clockKey, String(step))
            let deadline = Date().addingTimeInterval(60)
            while true {
                guard case .array(let seen) = try control.command("HVALS", "test:seen") else { break }
                let steps = seen.compactMap { reply -> Int? in
                    guard case .bulk(let text) = reply else { return nil }
                    return Int(String(decoding: text, as: UTF8.self))
                }
                if steps.count == machines, steps.allSatisfy({ $0 >= step }) { break }
                if workers.contains(where: { !$0.0.isRunning }) || Date() > deadline {
                    XCTFail("the machines stopped making calls at step \(step)")
                    break
                }
                try await Task.sleep(for: .milliseconds(5))
            }
        }
        _ = try control.command("SET", Self.doneKey, "1")
        var calls = 0
        for (process, output) in workers {
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0, text)
            for line in text.split(separator: "\n") {
                if line.hasPrefix("CALLS ") { calls += Int(line.dropFirst(6)) ?? 0 }
                if line.hasPrefix("FAILURE ") { XCTFail(String(line)) }
            }
        }
        XCTAssertGreaterThanOrEqual(calls, machines * 60)
        // A token issued at minute m is due at m + 5: twelve refreshes in the hour (one more when a
        // step lands exactly on the edge).
        let refreshes = emulator.tokenRequestCount(grantType: .refreshToken) - before
        XCTAssertGreaterThanOrEqual(refreshes, 11)
        XCTAssertLessThanOrEqual(refreshes, 13, "one refresh per expiry across the fleet")
        print("rotation: \(machines) machines, \(calls) silent calls, \(refreshes) refreshes in an hour of test clock")
    }
}
