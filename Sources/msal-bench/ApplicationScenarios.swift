import Foundation
import MSAL
import MSALCacheFixtures
import MSALNative
import MSALTestSupport

/// Scenarios through the public API against an in-process Entra emulator on loopback HTTPS:
/// `silent_cache_hit`, `silent_refresh` (with the bare-libcurl floor beside it),
/// `silent_concurrent` and `interactive_emulator`. The first three also run against the emulator of
/// another process (`remote`, see ``SharedEmulator``).
enum ApplicationScenarios {
    /// The tenant and client of the cache fixture (`PythonShapedCacheFile.write`).
    static let fixtureTenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"
    static let fixtureClient = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"

    /// The benchmark emulator: the defaults, the fixture's tenant and client, refresh tokens reused
    /// (so the floor can post the same refresh token again and again).
    static func emulator(port: Int = 0) throws -> EntraEmulator {
        var configuration = EntraEmulator.Configuration(port: port)
        configuration.refreshTokenRotation = .reuse
        configuration.tenants.append(
            EmulatorTenant(id: fixtureTenant, domains: ["fixture.onmicrosoft.com"]))
        configuration.clients.append(
            EmulatorClient(
                clientId: fixtureClient, redirectURIs: ["http://localhost"],
                permissions: ["https://graph.microsoft.com": ["User.Read", "Mail.Read"]]))
        return try EntraEmulator(configuration: configuration)
    }

    /// `remote`, or a new emulator in this process.
    static func benchEmulator(_ remote: RemoteEmulator?) throws -> any BenchEmulator {
        if let remote { return remote }
        return LocalEmulator(emulator: try emulator())
    }

    static func application(
        _ emulator: any BenchEmulator, clientId: String, authority: String, cacheFile: URL?
    ) throws -> MSALPublicClientApplication {
        let config = MSALPublicClientApplicationConfig(
            clientId: clientId, redirectUri: nil, authority: try MSALAuthority.authority(with: URL(string: authority)!))
        config.certificateAuthorityFile = emulator.caFile
        if let cacheFile {
            config.cacheConfig.cacheFileURL = cacheFile
        } else {
            config.cacheConfig.inMemoryOnly = true
        }
        config.connectTo = emulator.connectTo
        return try MSALPublicClientApplication(configuration: config)
    }

    /// `silent_cache_hit`: `acquireTokenSilent` answered from a cache of `accounts` accounts
    /// (realistic token sizes), for scopes that are a subset of the cached ones. With `fixture`, the
    /// cache is a copy of that file of `accounts` accounts (written by `cache_fixture`; a copy, as the
    /// application writes its cache file back), else a new one.
    static func silentCacheHit(
        accounts: Int, runs: Int, fixture: String? = nil, remote: RemoteEmulator? = nil
    ) async throws -> Measurement {
        let emulator = try benchEmulator(remote)
        defer { emulator.stop() }
        let cache = try await CachedApplication(accounts: accounts, fixture: fixture, emulator: emulator)
        defer { cache.remove() }
        let before = try emulator.tokenRequests(grantType: nil)
        var measurement = Measurement(scenario: "silent_cache_hit", params: ["accounts": accounts])
        try await cache.measure(runs, into: &measurement)
        measurement.params["token_requests"] = try emulator.tokenRequests(grantType: nil) - before
        return measurement
    }

    /// `silent_cache_hit_pair`: the cache hit at `accounts.0` and at `accounts.1` accounts in one
    /// process, in alternating blocks of 100 calls, so both medians see the same machine. The
    /// VM this runs on has a fast and a slow phase (about 1.6x apart) lasting seconds; separate
    /// runs of the two sizes can land in different phases, which says nothing about the cache.
    static func silentCacheHitPair(
        accounts: (Int, Int), runs: Int, fixtures: (String?, String?), remote: RemoteEmulator? = nil
    ) async throws -> [Measurement] {
        let emulator = try benchEmulator(remote)
        defer { emulator.stop() }
        let first = try await CachedApplication(accounts: accounts.0, fixture: fixtures.0, emulator: emulator)
        defer { first.remove() }
        let second = try await CachedApplication(accounts: accounts.1, fixture: fixtures.1, emulator: emulator)
        defer { second.remove() }
        let before = try emulator.tokenRequests(grantType: nil)
        var measurements = [accounts.0, accounts.1].map {
            Measurement(scenario: "silent_cache_hit_pair", params: ["accounts": $0])
        }
        var remaining = runs
        while remaining > 0 {
            let count = min(100, remaining)
            try await first.measure(count, into: &measurements[0])
            try await second.measure(count, into: &measurements[1])
            remaining -= count
        }
        let requests = try emulator.tokenRequests(grantType: nil) - before
        for index in measurements.indices { measurements[index].params["token_requests"] = requests }
        return measurements
    }

    /// An application whose cache holds `accounts` accounts, with the silent parameters of the
    /// account in the middle, after one warm-up call (discovery).
    private struct CachedApplication {
        let application: MSALPublicClientApplication
        let parameters: MSALSilentTokenParameters
        let accessToken: String
        let folder: URL

        init(accounts: Int, fixture: String?, emulator: any BenchEmulator) async throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("msal-bench-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let file = folder.appendingPathComponent("msal_cache.json")
            if let fixture {
                try FileManager.default.copyItem(atPath: fixture, toPath: file.path)
            } else {
                try PythonShapedCacheFile.write(path: file.path, accounts: accounts)
            }
            application = try ApplicationScenarios.application(
                emulator, clientId: fixtureClient, authority: "https://login.microsoftonline.com/\(fixtureTenant)",
                cacheFile: file)
            let identifier = String(
                format: "%08x-0000-4000-8000-%012x.%@", accounts / 2, (accounts / 2) * 7919, fixtureTenant)
            guard let account = try application.account(forIdentifier: identifier) else {
                throw BenchmarkError("the fixture has no account \(identifier)")
            }
            parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
            accessToken = try await application.acquireTokenSilent(with: parameters).accessToken
        }

        /// Times `runs` silent calls into `measurement`; each must return the cached token.
        func measure(_ runs: Int, into measurement: inout Measurement) async throws {
            for _ in 0..<runs {
                measurement.samples.append(
                    try await timeNanosecondsAsync {
                        let result = try await application.acquireTokenSilent(with: parameters)
                        precondition(result.accessToken == accessToken)
                    })
            }
        }

        func remove() {
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// `silent_refresh`: an expired access token refreshed over loopback HTTPS (`forceRefresh`), and
    /// beside it the same token request through a bare libcurl easy handle (the floor).
    static func silentRefresh(runs: Int, remote: RemoteEmulator? = nil) async throws -> [Measurement] {
        let emulator = try benchEmulator(remote)
        defer { emulator.stop() }
        let authority = "https://login.microsoftonline.com/\(EmulatorTenant.contoso.id)"
        let application = try application(
            emulator, clientId: EmulatorClient.sample.clientId, authority: authority, cacheFile: nil)
        let webview = MSALWebviewParameters()
        webview.customWebview = ScriptedBrowser(caFile: emulator.caFile, connectTo: emulator.connectTo)
        let signedIn = try await application.acquireToken(
            with: MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview))
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
        parameters.forceRefresh = true

        // The floor: the same refresh-token grant, posted with a reused easy handle, with a refresh
        // token of its own (from the emulator's password grant).
        let refreshToken = try floorRefreshToken(emulator, authority: authority)
        let body =
            "client_id=\(EmulatorClient.sample.clientId)&grant_type=refresh_token&refresh_token=\(refreshToken)"
            + "&scope=User.Read+openid+profile+offline_access&client_info=1"
        let floor = try CurlBlockingEasy(
            CurlRequest(
                url: "\(authority)/oauth2/v2.0/token", method: "POST",
                headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
                body: Array(body.utf8), caFile: emulator.caFile, connectTo: emulator.connectTo))

        var silent = Measurement(scenario: "silent_refresh", params: ["client": "msal"])
        var baseline = Measurement(scenario: "silent_refresh", params: ["client": "curl_easy_floor"])
        for _ in 0..<20 {
            _ = try await application.acquireTokenSilent(with: parameters)
            _ = try floor.perform()
        }
        var remaining = runs
        while remaining > 0 {
            let count = min(10, remaining)
            for _ in 0..<count {
                silent.samples.append(
                    try await timeNanosecondsAsync { _ = try await application.acquireTokenSilent(with: parameters) })
            }
            for _ in 0..<count {
                baseline.samples.append(
                    try timeNanoseconds {
                        let status = try floor.perform().status
                        precondition(status == 200)
                    })
            }
            remaining -= count
        }
        return [silent, baseline]
    }

    private static func floorRefreshToken(_ emulator: any BenchEmulator, authority: String) throws -> String {
        let user = EmulatorUser.alice
        let body =
            "client_id=\(EmulatorClient.sample.clientId)&grant_type=password&username=\(user.username)"
            + "&password=\(user.password)&scope=User.Read+openid+profile+offline_access"
        let response = try CurlBlockingEasy(
            CurlRequest(
                url: "\(authority)/oauth2/v2.0/token", method: "POST",
                headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array(body.utf8),
                caFile: emulator.caFile, connectTo: emulator.connectTo)
        ).performReturningResponse()
        guard let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
            let token = object["refresh_token"] as? String
        else { throw BenchmarkError("the password grant returned no refresh token (HTTP \(response.status))") }
        return token
    }

    /// `silent_concurrent`: `callers` concurrent silent calls for one expired token; reports how many
    /// token requests reached the emulator (the target is one). The sign-in gets an access token of
    /// 301 s, inside the 300 s expiry buffer 2 s later; the refresh gets a normal one (3599 s).
    static func silentConcurrent(callers: Int, remote: RemoteEmulator? = nil) async throws -> Measurement {
        let emulator = try benchEmulator(remote)
        defer { emulator.stop() }
        try emulator.setAccessTokenLifetime(301)
        let authority = "https://login.microsoftonline.com/\(EmulatorTenant.contoso.id)"
        let application = try application(
            emulator, clientId: EmulatorClient.sample.clientId, authority: authority, cacheFile: nil)
        let webview = MSALWebviewParameters()
        webview.customWebview = ScriptedBrowser(caFile: emulator.caFile, connectTo: emulator.connectTo)
        let signedIn = try await application.acquireToken(
            with: MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview))
        try emulator.setAccessTokenLifetime(3599)
        try await Task.sleep(for: .seconds(2))  // the token is now within the buffer: expired
        let before = try emulator.tokenRequests(grantType: .refreshToken)
        let account = signedIn.account
        var measurement = Measurement(scenario: "silent_concurrent", params: ["callers": callers])
        let elapsed = try await timeNanosecondsAsync {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<callers {
                    group.addTask {
                        _ = try await application.acquireTokenSilent(
                            with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
                    }
                }
                try await group.waitForAll()
            }
        }
        measurement.samples = [elapsed]
        measurement.params["token_requests"] = try emulator.tokenRequests(grantType: .refreshToken) - before
        return measurement
    }

    /// `interactive_emulator`: a full scripted sign-in (authorize redirect, code redemption, cache).
    static func interactive(runs: Int) async throws -> Measurement {
        let emulator = LocalEmulator(emulator: try emulator())
        defer { emulator.stop() }
        let application = try application(
            emulator, clientId: EmulatorClient.sample.clientId,
            authority: "https://login.microsoftonline.com/common", cacheFile: nil)
        let webview = MSALWebviewParameters()
        webview.customWebview = ScriptedBrowser(caFile: emulator.caFile, connectTo: emulator.connectTo)
        let parameters = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview)
        _ = try await application.acquireToken(with: parameters)
        var measurement = Measurement(scenario: "interactive_emulator", params: [:])
        for _ in 0..<runs {
            measurement.samples.append(
                try await timeNanosecondsAsync { _ = try await application.acquireToken(with: parameters) })
        }
        return measurement
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
