import Foundation
import MSAL
import MSALNative
import MSALRedisCache
import MSALRedisCacheNative
import MSALTestSupport

/// `redis_cache`: the token cache in Redis (`MSALRedisCacheStorage`) beside the file cache, through
/// the public API against an in-process emulator: a silent cache hit (Redis asked for the version
/// before each read, and served from memory within `readStaleness`), and a refresh round trip
/// (`forceRefresh`: token request, lease, compare-and-set save). Starts its own `redis-server`
/// (`/usr/bin/redis-server`, no persistence) on a free loopback port and stops it by its PID.
enum RedisScenarios {
    static func run(runs: Int) async throws -> [Measurement] {
        let redis = try RedisProcess()
        defer { redis.stop() }
        let emulator = LocalEmulator(emulator: try ApplicationScenarios.emulator())
        defer { emulator.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("msal-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let connection = MSALRedisConnectionConfig(host: "127.0.0.1", port: redis.port)
        let storages: [(String, (MSALPublicClientApplicationConfig) throws -> Void)] = [
            ("file", { $0.cacheConfig.cacheFileURL = folder.appendingPathComponent("msal_cache.json") }),
            (
                "redis",
                {
                    $0.cacheConfig.customStorage = try MSALRedisCacheStorage(connection: connection, cacheName: "bench")
                }
            ),
            (
                "redis_stale_1s",
                {
                    $0.cacheConfig.customStorage = try MSALRedisCacheStorage(
                        connection: connection, cacheName: "bench-stale", readStaleness: 1)
                }
            ),
        ]
        var hits: [Measurement] = []
        var refreshes: [Measurement] = []
        for (name, configure) in storages {
            let config = MSALPublicClientApplicationConfig(
                clientId: EmulatorClient.sample.clientId, redirectUri: nil,
                authority: try MSALAuthority.authority(
                    with: URL(string: "https://login.microsoftonline.com/\(EmulatorTenant.contoso.id)")!))
            config.certificateAuthorityFile = emulator.caFile
            config.connectTo = emulator.connectTo
            try configure(config)
            let application = try MSALPublicClientApplication(configuration: config)
            let webview = MSALWebviewParameters()
            webview.customWebview = ScriptedBrowser(caFile: emulator.caFile, connectTo: emulator.connectTo)
            let signedIn = try await application.acquireToken(
                with: MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview))
            let silent = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
            let forced = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
            forced.forceRefresh = true
            for _ in 0..<20 { _ = try await application.acquireTokenSilent(with: forced) }
            let token = try await application.acquireTokenSilent(with: silent).accessToken

            var hit = Measurement(scenario: "redis_cache_hit", params: ["storage": name])
            for _ in 0..<runs {
                hit.samples.append(
                    try await timeNanosecondsAsync {
                        let result = try await application.acquireTokenSilent(with: silent)
                        precondition(result.accessToken == token)
                    })
            }
            hits.append(hit)
            var refresh = Measurement(scenario: "redis_cache_refresh", params: ["storage": name])
            for _ in 0..<min(runs, 500) {
                refresh.samples.append(
                    try await timeNanosecondsAsync { _ = try await application.acquireTokenSilent(with: forced) })
            }
            refreshes.append(refresh)
        }
        return hits + refreshes
    }
}

/// A private `redis-server` for the benchmark.
private final class RedisProcess {
    let port: Int
    private let process = Process()
    private let folder: URL

    init() throws {
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        port = listener.port
        listener.close()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("msal-bench-redis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-server")
        process.arguments = [
            "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", folder.path,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let storage = try MSALRedisCacheStorage(
            connection: MSALRedisConnectionConfig(host: "127.0.0.1", port: port), cacheName: "probe")
        let deadline = Date().addingTimeInterval(10)
        while (try? storage.storedVersion()) == nil {
            guard Date() < deadline, process.isRunning else {
                stop()
                throw BenchmarkError("redis-server did not start on port \(port)")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Stops the server with `SHUTDOWN NOSAVE` (a SIGTERM would not do: the server inherits this
    /// process's blocked signals from the Dispatch thread that spawned it).
    func stop() {
        if process.isRunning {
            let connection = try? RedisConnection(RedisEndpoint(host: "127.0.0.1", port: port, timeout: 2), tls: nil)
            _ = try? connection?.command("SHUTDOWN", "NOSAVE")
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: folder)
    }
}
