import Foundation
import MSAL
import MSALTestSupport
import XCTest

/// While another process holds the cache file's lock, the writes waiting for it suspend their
/// tasks: the cooperative threads keep running other work, and a cache hit is answered at once.
final class CacheLockWaitTests: XCTestCase {
    private static let bob = EmulatorUser(
        username: "bob.lockwait@contoso.onmicrosoft.com", displayName: "Bob", objectId: UUID().uuidString,
        homeTenantId: EmulatorTenant.contoso.id)

    /// An application with 64 scopes, so that 64 refreshes are 64 requests and 64 writes.
    private static let client = EmulatorClient(
        clientId: "6c1d7e9f-3b4a-4e8c-9d0f-2a3b4c5d6e73", redirectURIs: ["http://localhost"],
        permissions: [EmulatorClient.graph: ["User.Read"] + (0..<64).map { "Scope\($0).Read" }])

    /// Records the longest gap between the ticks of a task that sleeps 10 ms at a time: over the
    /// whole run, and in a window (from ``open()`` to ``close()``).
    private final class Ticker: Sendable {
        private struct Gaps {
            var overall: Duration = .zero
            var window: Duration = .zero
            var windowOpen = false
            var stopped = false
        }

        private let gaps = Locked(Gaps())

        func run() async {
            let clock = ContinuousClock()
            var last = clock.now
            while !gaps.withLock({ $0.stopped }) {
                try? await Task.sleep(for: .milliseconds(10))
                let now = clock.now
                gaps.withLock {
                    $0.overall = max($0.overall, now - last)
                    if $0.windowOpen { $0.window = max($0.window, now - last) }
                }
                last = now
            }
        }

        func open() {
            gaps.withLock { $0.windowOpen = true }
        }

        /// The longest gap in the window.
        func close() -> Duration {
            gaps.withLock {
                $0.windowOpen = false
                return $0.window
            }
        }

        /// The longest gap overall.
        func stop() -> Duration {
            gaps.withLock {
                $0.stopped = true
                return $0.overall
            }
        }
    }

    private final class Locked<Value: Sendable>: @unchecked Sendable {
        // @unchecked: `value` is only touched under `lock`.
        private let lock = NSLock()
        private var value: Value
        init(_ value: Value) { self.value = value }
        func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
            lock.lock()
            defer { lock.unlock() }
            return body(&value)
        }
    }

    /// Starts a Python process that takes `flock(LOCK_EX)` on `lockPath` (as this library's
    /// writers do on `<cache>.lock`), holds it `seconds`, then exits; returns once it holds it.
    private func holdLock(_ lockPath: String, seconds: Double) async throws -> Process {
        let marker = lockPath + ".held-by-test"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            """
            import fcntl, os, sys, time
            f = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(f, fcntl.LOCK_EX)
            open(sys.argv[2], "w").close()
            time.sleep(float(sys.argv[3]))
            """,
            lockPath, marker, String(seconds),
        ]
        try process.run()
        let clock = ContinuousClock()
        let start = clock.now
        while !FileManager.default.fileExists(atPath: marker) {
            guard process.isRunning, clock.now - start < .seconds(10) else {
                throw XCTSkip("python3 could not hold the lock")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        return process
    }

    func testWritesWaitingForAnotherProcessesLockBlockNeitherThreadsNorCacheHits() async throws {
        let emulator = try EmulatorHarness.makeEmulator()
        defer { emulator.stop() }
        emulator.add(user: Self.bob)
        emulator.add(client: Self.client)
        let configuration = try emulator.applicationConfiguration(clientId: Self.client.clientId)
        let cachePath = try XCTUnwrap(configuration.cacheConfig.cacheFileURL?.path)
        let application = try MSALPublicClientApplication(configuration: configuration)
        func signIn(_ username: String) async throws -> MSALAccount {
            try await application.acquireTokenWithDeviceCode(parameters: MSALTokenParameters(scopes: ["User.Read"])) {
                info in
                try? emulator.approveDeviceCode(userCode: info.userCode, as: username)
            }.account
        }
        let alice = try await signIn(EmulatorUser.alice.username)
        let bob = try await signIn(Self.bob.username)
        let bobSilent = MSALSilentTokenParameters(scopes: ["User.Read"], account: bob)
        let bobToken = try await application.acquireTokenSilent(with: bobSilent).accessToken

        let started = ContinuousClock.now
        // Python sleeps 5 s once it holds the lock, which it takes after this.
        let heldUntil = started + .seconds(5)
        let holder = try await holdLock(cachePath + ".lock", seconds: 5)
        defer { if holder.isRunning { holder.terminate() } }
        let ticker = Ticker()
        let ticking = Task { await ticker.run() }

        // 64 silent calls for Alice that each redeem her refresh token (distinct scopes, forced)
        // and must then write the cache: each waits for the Python process's lock.
        let writes = Task {
            try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<64 {
                    group.addTask {
                        let silent = MSALSilentTokenParameters(scopes: ["Scope\(index).Read"], account: alice)
                        silent.forceRefresh = true
                        return try await application.acquireTokenSilent(with: silent).accessToken
                    }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
        }
        // Once the refreshes were answered, the writes are waiting.
        while emulator.tokenRequestCount(grantType: .refreshToken) < 64, ContinuousClock.now - started < .seconds(4) {
            try await Task.sleep(for: .milliseconds(10))
        }
        try await Task.sleep(for: .milliseconds(300))
        XCTAssertTrue(holder.isRunning, "the lock is still held")
        // The ticker's window: the writes only wait (the start is busy with 64 token requests
        // on two cores; the end with 64 writes, each holding the cache while it writes).
        ticker.open()

        // Bob's token is a cache hit: answered at once, the file lock notwithstanding.
        let hitStart = ContinuousClock.now
        let hit = try await application.acquireTokenSilent(with: bobSilent)
        let hitTime = ContinuousClock.now - hitStart
        XCTAssertEqual(hit.accessToken, bobToken)
        XCTAssertTrue(holder.isRunning, "the hit came while the lock was held")
        try await Task.sleep(until: heldUntil - .milliseconds(200))
        let longestWaitingGap = ticker.close()
        XCTAssertTrue(holder.isRunning, "the window ended while the lock was held")

        let tokens = try await writes.value
        let waited = ContinuousClock.now - started
        let longestGap = ticker.stop()
        await ticking.value
        print(
            "CacheLockWaitTests: cache hit in \(hitTime), longest gap between 10 ms ticks \(longestGap) "
                + "(\(longestWaitingGap) while the writes waited), 64 writes done after \(waited)")
        XCTAssertEqual(Set(tokens).count, 64)
        XCTAssertGreaterThanOrEqual(waited, .seconds(4), "the writes waited for the lock")
        XCTAssertLessThan(hitTime, .milliseconds(200), "a cache hit does not wait for a write")
        XCTAssertLessThan(longestGap, .seconds(1), "no cooperative thread was blocked for the wait")
        XCTAssertLessThan(longestWaitingGap, .milliseconds(200), "the waiting writes kept no thread busy")
        XCTAssertLessThan(waited, .seconds(15))
    }
}
