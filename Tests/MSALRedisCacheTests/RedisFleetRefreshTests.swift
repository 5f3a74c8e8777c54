import Foundation
import MSAL
import MSALNative
import MSALRedisCache
import MSALTestSupport
import XCTest

/// Processes standing for machines: each has its own memory and its own connection to one Redis,
/// no shared file. However many silent calls they make on an expired token, the fleet sends one
/// token request (the refresh lease in Redis), and every machine gets the one new token.
final class RedisFleetRefreshTests: XCTestCase {
    /// The worker: runs only when started by a test below (the test bundle run again).
    func testWorkerEntryPoint() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let port = environment["MSAL_REDIS_WORKER_PORT"].flatMap(Int.init),
            let caFile = environment["MSAL_REDIS_WORKER_CA"],
            let connectTo = environment["MSAL_REDIS_WORKER_CONNECT_TO"],
            let calls = environment["MSAL_REDIS_WORKER_CALLS"].flatMap(Int.init)
        else { return }
        let application = try Self.application(
            redisPort: port, caFile: caFile, connectTo: connectTo.split(separator: ",").map(String.init))
        let account = try XCTUnwrap(try application.allAccounts().first)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<calls {
                group.addTask {
                    let result = try await application.acquireTokenSilent(
                        with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
                    return String(result.accessToken.suffix(12))
                }
            }
            var tokens = Set<String>()
            for try await token in group { tokens.insert(token) }
            return tokens
        }
        for token in tokens { print("TOKEN \(token)") }
    }

    static func application(
        redisPort: Int, caFile: String, connectTo: [String], storage: (any MSALCacheStorage)? = nil
    ) throws -> MSALPublicClientApplication {
        let config = MSALPublicClientApplicationConfig(
            clientId: EmulatorClient.sample.clientId, redirectUri: nil,
            authority: try MSALAuthority.authority(with: URL(string: "https://login.microsoftonline.com/common")!))
        config.certificateAuthorityFile = caFile
        config.connectTo = connectTo
        config.cacheConfig.customStorage =
            try storage
            ?? MSALRedisCacheStorage(
                connection: MSALRedisConnectionConfig(host: "127.0.0.1", port: redisPort), cacheName: "fleet")
        return try MSALPublicClientApplication(configuration: config)
    }

    func testFourMachinesMakingAThousandSilentCallsOnAnExpiredTokenSendOneRequest() async throws {
        let server = try RedisServer()
        let emulator = try EntraEmulator(configuration: EntraEmulator.Configuration())
        defer { emulator.stop() }
        var lifetimes = emulator.lifetimes
        lifetimes.accessToken = 100  // inside the 300 s expiry buffer: expired as soon as cached
        emulator.lifetimes = lifetimes
        let caFile = emulator.certificateAuthority.certificateFile
        let signer = try Self.application(redisPort: server.port, caFile: caFile, connectTo: emulator.connectTo)
        let webview = MSALWebviewParameters()
        webview.customWebview = ScriptedBrowser(configuration: .init(caFile: caFile, connectTo: emulator.connectTo))
        let signedIn = try await signer.acquireToken(
            with: MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview))
        lifetimes.accessToken = 3600  // the refreshed token is good for the machines that wait
        emulator.lifetimes = lifetimes
        let before = emulator.tokenRequestCount(grantType: .refreshToken)

        let machines = 4
        let workers = try (0..<machines).map { _ in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["MSALRedisCacheTests.RedisFleetRefreshTests/testWorkerEntryPoint"]
            var environment = ProcessInfo.processInfo.environment
            environment["MSAL_REDIS_WORKER_PORT"] = String(server.port)
            environment["MSAL_REDIS_WORKER_CA"] = caFile
            environment["MSAL_REDIS_WORKER_CONNECT_TO"] = emulator.connectTo.joined(separator: ",")
            environment["MSAL_REDIS_WORKER_CALLS"] = String(1000 / machines)
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
        XCTAssertEqual(tokens.count, 1, "every machine got the same new token: \(tokens)")
        XCTAssertFalse(tokens.contains("TOKEN \(signedIn.accessToken.suffix(12))"))
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken) - before, 1)
    }

    func testLeaseOfAHolderThatDiedExpiresAndTheRefreshGoesOn() async throws {
        let server = try RedisServer()
        let emulator = try EntraEmulator(configuration: EntraEmulator.Configuration())
        defer { emulator.stop() }
        var lifetimes = emulator.lifetimes
        lifetimes.accessToken = 100  // expired as soon as cached
        emulator.lifetimes = lifetimes
        let connection = MSALRedisConnectionConfig(host: "127.0.0.1", port: server.port)
        let storage = try DeadHolderFirst(
            try MSALRedisCacheStorage(connection: connection, cacheName: "fleet", refreshLeaseDuration: 0.5),
            dead: try MSALRedisCacheStorage(connection: connection, cacheName: "fleet", refreshLeaseDuration: 0.5))
        let caFile = emulator.certificateAuthority.certificateFile
        let application = try Self.application(
            redisPort: server.port, caFile: caFile, connectTo: emulator.connectTo, storage: storage)
        let webview = MSALWebviewParameters()
        webview.customWebview = ScriptedBrowser(configuration: .init(caFile: caFile, connectTo: emulator.connectTo))
        let signedIn = try await application.acquireToken(
            with: MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview))
        let before = emulator.tokenRequestCount(grantType: .refreshToken)

        let start = Date()
        let refreshed = try await application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account))
        XCTAssertNotEqual(refreshed.accessToken, signedIn.accessToken)
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken) - before, 1)
        XCTAssertTrue(storage.deadHolderTookTheLease)
        // It waited for the dead holder's lease to expire (0.5 s), not for 2 x 0.5 s and an error.
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.4)
    }
}

/// A Redis storage whose first lease is taken by a holder that then dies (never releases it).
final class DeadHolderFirst: MSALCacheRefreshCoordinating, @unchecked Sendable {
    // @unchecked: `died` is behind a lock; the rest is immutable.
    private let live: MSALRedisCacheStorage
    private let dead: MSALRedisCacheStorage
    private let died = Locked(false)

    init(_ live: MSALRedisCacheStorage, dead: MSALRedisCacheStorage) throws {
        self.live = live
        self.dead = dead
    }

    var deadHolderTookTheLease: Bool { died.withLock { $0 } }
    var readStaleness: TimeInterval { live.readStaleness }
    var refreshLeaseDuration: TimeInterval { live.refreshLeaseDuration }
    func load() throws -> Data? { try live.load() }
    func save(_ data: Data) throws { try live.save(data) }
    func loadVersioned() throws -> MSALSharedCacheDocument { try live.loadVersioned() }
    func storedVersion() throws -> UInt64 { try live.storedVersion() }
    func save(_ data: Data, replacingVersion expected: UInt64, lease: MSALCacheRefreshLease?) throws
        -> MSALCacheSaveOutcome
    {
        try live.save(data, replacingVersion: expected, lease: lease)
    }
    func acquireRefreshLease(key: String) throws -> MSALCacheRefreshLease? {
        let first = died.withLock { died in
            defer { died = true }
            return !died
        }
        if first { _ = try dead.acquireRefreshLease(key: key) }
        return try live.acquireRefreshLease(key: key)
    }
    func releaseRefreshLease(_ lease: MSALCacheRefreshLease) throws { try live.releaseRefreshLease(lease) }
}
