import Foundation
import Glibc
import MSALNative
import XCTest

@testable import MSAL

/// The cache path under several processes and careless environments (issue 19). The workers are
/// this test bundle run again with `MSAL_STORAGE_WORKER` set, executing only
/// ``testWorkerEntryPoint()``.
final class CacheStorageProcessTests: XCTestCase {
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
        guard let role = environment["MSAL_STORAGE_WORKER"], let path = environment["MSAL_STORAGE_PATH"] else {
            return
        }
        let id = environment["MSAL_STORAGE_WORKER_ID"] ?? "0"
        let count = Int(environment["MSAL_STORAGE_WORKER_COUNT"] ?? "") ?? 40
        let settings = CacheSettings(location: .file(path: path, isDefault: false), lockTimeout: 600)
        switch role {
        case "save":
            let cache = TokenCache(settings: settings)
            for index in 0..<count {
                try cache.modifyBlocking {
                    $0.save(CacheFixtures.response(uid: "w\(id)-\(index)", accessToken: "at-\(id)-\(index)"))
                }
                // Acknowledged: the save returned.
                FileHandle.standardOutput.write(Data("at-\(id)-\(index)\n".utf8))
            }
        case "read-only":
            // Another user, who may read the folder but not write in it.
            guard setgroups(0, nil) == 0, setgid(65534) == 0, setuid(65534) == 0 else {
                FileHandle.standardOutput.write(Data("cannot drop privileges\n".utf8))
                return
            }
            let cache = TokenCache(settings: settings)
            let accounts = (try? cache.readBlocking { $0.counts.accounts }).map(String.init) ?? "read failed"
            FileHandle.standardOutput.write(Data("accounts \(accounts)\n".utf8))
            do {
                try cache.modifyBlocking { $0.save(CacheFixtures.response(uid: "nobody")) }
                FileHandle.standardOutput.write(Data("write succeeded\n".utf8))
            } catch {
                let text = (error as NSError).userInfo[MSALErrorDescriptionKey] as? String ?? "\(error)"
                FileHandle.standardOutput.write(Data("write failed: \(text)\n".utf8))
            }
        default:
            XCTFail("unknown worker role \(role)")
        }
    }

    private func worker(_ role: String, path: String, id: Int, count: Int) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["MSALTests.CacheStorageProcessTests/testWorkerEntryPoint"]
        var environment = ProcessInfo.processInfo.environment
        environment["MSAL_STORAGE_WORKER"] = role
        environment["MSAL_STORAGE_PATH"] = path
        environment["MSAL_STORAGE_WORKER_ID"] = String(id)
        environment["MSAL_STORAGE_WORKER_COUNT"] = String(count)
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        if let log = ProcessInfo.processInfo.environment["MSAL_STORAGE_WORKER_LOG"] {
            _ = FileManager.default.createFile(atPath: log + "-\(role)-\(id)", contents: nil)
            process.standardError = FileHandle(forWritingAtPath: log + "-\(role)-\(id)")
        }
        try process.run()
        return (process, output)
    }

    /// Workers save while a cleaner removes `suffixes` of the cache path every `period` µs; every
    /// acknowledged save must be in the file at the end.
    private func assertNothingLost(
        workers count: Int, saves: Int, removing suffixes: [String], every period: UInt32
    ) throws {
        let path = folder.appendingPathComponent("cache.json").path
        let workers = try (0..<count).map { try worker("save", path: path, id: $0, count: saves) }
        let stop = Locked(false)
        let cleaner = Thread {
            while !stop.withLock({ $0 }) {
                for suffix in suffixes { unlink(path + suffix) }
                usleep(period)
            }
        }
        cleaner.start()
        var acknowledged: Set<String> = []
        for (process, output) in workers {
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            acknowledged.formUnion(text.split(separator: "\n").map(String.init).filter { $0.hasPrefix("at-") })
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0)
        }
        stop.withLock { $0 = true }
        XCTAssertEqual(acknowledged.count, count * saves)
        let cache = TokenCache(settings: CacheSettings(location: .file(path: path, isDefault: false)))
        let secrets = Set(try cache.readBlocking { $0.accessTokens.values.map(\.secret) })
        let lost = acknowledged.subtracting(secrets)
        XCTAssertTrue(lost.isEmpty, "\(lost.count) acknowledged writes lost: \(lost.sorted().prefix(10))")
    }

    func testWritesSurviveTheLockFileBeingRemovedAgainAndAgain() throws {
        // A temp cleaner's `rm *.lock` every 10 ms.
        let saves = Int(ProcessInfo.processInfo.environment["MSAL_CACHE_SAVES_PER_PROCESS"] ?? "") ?? 40
        try assertNothingLost(workers: 6, saves: saves, removing: [".lock"], every: 10_000)
    }

    func testWritesSurviveBothLockFilesBeingRemovedAgainAndAgain() throws {
        // `rm *.lock*`: ours and MSAL Python's extension's; a writer that loses both starts over,
        // so a save must fit between two removals: under a sanitizer, where a save takes many times
        // longer, scripts/sanitizers.sh spaces them (MSAL_BOTH_LOCKS_CLEANER_MICROSECONDS).
        let environment = ProcessInfo.processInfo.environment
        let saves = Int(environment["MSAL_CACHE_SAVES_PER_PROCESS"] ?? "") ?? 25
        let every = UInt32(environment["MSAL_BOTH_LOCKS_CLEANER_MICROSECONDS"] ?? "") ?? 40_000
        try assertNothingLost(workers: 4, saves: saves, removing: [".lock", ".lockfile"], every: every)
    }

    func testReadingWorksWithoutWriteAccessAndOnlyAWriteFails() throws {
        guard getuid() == 0 else {
            throw XCTSkip("needs root to run the worker as another user (as another user, chmod 0500 the folder)")
        }
        // A folder and a cache file that user `nobody` may read but not write.
        let shared = folder.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: false)
        let path = shared.appendingPathComponent("cache.json").path
        try TokenCache(settings: CacheSettings(location: .file(path: path, isDefault: false))).modifyBlocking {
            $0.save(CacheFixtures.response(uid: "alice"))
        }
        try FileManager.default.removeItem(atPath: path + ".lock")
        chmod(folder.path, 0o755)
        chmod(shared.path, 0o755)
        chmod(path, 0o644)
        let (process, output) = try worker("read-only", path: path, id: 0, count: 0)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertTrue(text.contains("accounts 1"), text)
        XCTAssertTrue(text.contains("write failed"), text)
        XCTAssertTrue(text.contains("cannot be written"), text)
        XCTAssertTrue(text.contains(shared.path), text)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + ".lock"), "reading creates no lock file")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + ".lockfile"))
    }
}
