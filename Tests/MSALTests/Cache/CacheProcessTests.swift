import Foundation
import Glibc
import XCTest

@testable import MSAL

/// Several processes sharing one cache file. The workers are this test bundle run again with
/// `MSAL_CACHE_WORKER` set, executing only ``testWorkerEntryPoint()``.
final class CacheProcessTests: XCTestCase {
    private var folder: URL!

    override func setUp() {
        folder = CacheFixtures.temporaryFolder()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    /// The worker: does nothing unless started by a test below.
    func testWorkerEntryPoint() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let role = environment["MSAL_CACHE_WORKER"], let path = environment["MSAL_CACHE_PATH"] else { return }
        let id = environment["MSAL_CACHE_WORKER_ID"] ?? "0"
        let count = Int(environment["MSAL_CACHE_WORKER_COUNT"] ?? "") ?? 200
        // A long bound: on a loaded 2-core machine a worker can wait a long time for its turn;
        // this test is about losing nothing, not about how long each wait is.
        let settings = CacheSettings(location: .file(path: path, isDefault: false), lockTimeout: 600)
        let cache = TokenCache(settings: settings)
        switch role {
        case "save":
            for index in 0..<count {
                try cache.modifyBlocking {
                    $0.save(CacheFixtures.response(uid: "w\(id)-\(index)", accessToken: "at-\(id)-\(index)"))
                }
            }
        case "churn":
            var index = 0
            FileHandle.standardOutput.write(Data("started\n".utf8))
            while true {  // until killed
                try cache.modifyBlocking {
                    $0.save(CacheFixtures.response(uid: "churn-\(index % 50)", accessToken: "at-\(index)"))
                }
                index += 1
            }
        default:
            XCTFail("unknown worker role \(role)")
        }
    }

    private func worker(_ role: String, path: String, id: Int, count: Int = 200) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["MSALTests.CacheProcessTests/testWorkerEntryPoint"]
        var environment = ProcessInfo.processInfo.environment
        environment["MSAL_CACHE_WORKER"] = role
        environment["MSAL_CACHE_PATH"] = path
        environment["MSAL_CACHE_WORKER_ID"] = String(id)
        environment["MSAL_CACHE_WORKER_COUNT"] = String(count)
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    func testEightProcessesSavingConcurrentlyLoseNothing() throws {
        let path = folder.appendingPathComponent("cache.json").path
        // 200 each, as the cache issue asks; the sanitizer stages (scripts/sanitizers.sh), where
        // every save is many times slower, set fewer through MSAL_CACHE_SAVES_PER_PROCESS.
        let saves = Int(ProcessInfo.processInfo.environment["MSAL_CACHE_SAVES_PER_PROCESS"] ?? "") ?? 200
        let workers = try (0..<8).map { try worker("save", path: path, id: $0, count: saves) }
        for process in workers {
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0)
        }
        let cache = TokenCache(settings: CacheSettings(location: .file(path: path, isDefault: false)))
        let secrets = Set(try cache.readBlocking { $0.accessTokens.values.map(\.secret) })
        XCTAssertEqual(secrets.count, 8 * saves)
        for id in 0..<8 {
            for index in 0..<saves { XCTAssertTrue(secrets.contains("at-\(id)-\(index)"), "at-\(id)-\(index)") }
        }
        XCTAssertEqual(try cache.readBlocking { $0.counts.accounts }, 8 * saves)
    }

    func testWriterKilledMidWriteLeavesAReadableCacheAndAUsableLock() throws {
        let path = folder.appendingPathComponent("cache.json").path
        // A large cache, so each rewrite takes long enough to be killed in the middle of one.
        var seed = TokenStore()
        for index in 0..<1500 {
            seed.save(CacheFixtures.response(uid: "seed-\(index)", accessToken: String(repeating: "a", count: 1500)))
        }
        let seeded = TokenCache(settings: CacheSettings(location: .file(path: path, isDefault: false)))
        try seeded.modifyBlocking { $0 = seed }

        for round in 0..<3 {
            let process = try worker("churn", path: path, id: round)
            usleep(useconds_t(400_000 + round * 150_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .uncaughtSignal)

            let reader = TokenCache(
                settings: CacheSettings(location: .file(path: path, isDefault: false), lockTimeout: 2))
            let accounts = try reader.readBlocking { $0.counts.accounts }
            XCTAssertGreaterThanOrEqual(accounts, 1500, "round \(round)")
            try reader.modifyBlocking { $0.save(CacheFixtures.response(uid: "after-\(round)")) }
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            XCTAssertFalse(names.contains { $0.contains(".corrupt-") }, "never corrupt: \(names)")
        }
    }
}
