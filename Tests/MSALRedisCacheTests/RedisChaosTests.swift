import Foundation
import Glibc
import MSALNative
import MSALRedisCache
import MSALRedisCacheNative
import XCTest

@testable import MSAL

/// Eight processes standing for machines save and remove accounts in one Redis cache while the test
/// kills some of them (SIGKILL) at random and restarts Redis (SIGKILL, with `appendfsync always`)
/// in the middle. No acknowledged write is lost: every account a machine reported saved (and not
/// reported removed) is in the cache at the end, and no account reported removed is. Every failure
/// a machine saw is an MSALRedisCache error with a documented code, never a hang or a crash.
final class RedisChaosTests: XCTestCase {
    /// The worker: runs only when started by the test below (the test bundle run again).
    func testWorkerEntryPoint() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let port = environment["MSAL_CHAOS_WORKER_PORT"].flatMap(Int.init),
            let id = environment["MSAL_CHAOS_WORKER_ID"]
        else { return }
        var connection = MSALRedisConnectionConfig(host: "127.0.0.1", port: port)
        connection.timeout = 2
        let cache = TokenCache(
            settings: CacheSettings(
                location: .custom(try MSALRedisCacheStorage(connection: connection, cacheName: "chaos"))))
        var saved: [String] = []
        var index = 0
        // Unbuffered: a line is written once the change is acknowledged, before a kill can come.
        func report(_ line: String) {
            FileHandle.standardOutput.write(Data((line + " \(Date().timeIntervalSince1970)\n").utf8))
        }
        while true {  // until killed or stopped
            index += 1
            let removing = !saved.isEmpty && index % 4 == 0
            let uid = removing ? saved.removeFirst() : "\(id)-\(index)"
            do {
                if removing {
                    // Announced first: a worker killed during the removal leaves its outcome open.
                    report("REMOVING \(uid)")
                    try cache.modifyBlocking {
                        $0.removeAccount(
                            homeAccountId: "\(uid).5c1b3e8a-0000-4000-8000-000000000001",
                            clientId: "04b07795-8ddb-461a-bbee-02f9e1bf7b46")
                    }
                    report("REMOVED \(uid)")
                } else {
                    try cache.modifyBlocking { $0.save(RedisCacheStorageTests.response(uid: uid)) }
                    saved.append(uid)
                    report("SAVED \(uid)")
                }
            } catch {
                // Not acknowledged: the outcome is unknown (the script may have run before the
                // connection broke or Redis was killed), so the test checks nothing about this
                // account any more: a removal that failed may have removed it.
                report("ERROR \(MSALErrorInfo(error).internalCodeValue ?? 0) \(uid)")
                usleep(20_000)
            }
            if FileManager.default.fileExists(atPath: environment["MSAL_CHAOS_STOP"] ?? "/nonexistent") { break }
        }
    }

    func testEightMachinesWithKillsAndARedisRestartLoseNoAcknowledgedWrite() throws {
        let seconds = Double(ProcessInfo.processInfo.environment["MSAL_REDIS_CHAOS_SECONDS"] ?? "") ?? 60
        let server = try RedisServer(extra: ["--appendonly", "yes", "--appendfsync", "always"])
        let stopFile = server.folder.appendingPathComponent("stop").path
        let machines = 8
        var processes: [Int: Process] = [:]
        var generation = 0

        func start(_ slot: Int) throws {
            generation += 1
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["MSALRedisCacheTests.RedisChaosTests/testWorkerEntryPoint"]
            var environment = ProcessInfo.processInfo.environment
            environment["MSAL_CHAOS_WORKER_PORT"] = String(server.port)
            environment["MSAL_CHAOS_WORKER_ID"] = "w\(slot)g\(generation)"
            environment["MSAL_CHAOS_STOP"] = stopFile
            process.environment = environment
            // A file per worker: what a killed worker wrote stays readable, whatever became of it.
            let outputFile = server.folder.appendingPathComponent("worker-\(generation).out").path
            _ = FileManager.default.createFile(atPath: outputFile, contents: nil)
            process.standardOutput = FileHandle(forWritingAtPath: outputFile)
            process.standardError = FileHandle.nullDevice
            try process.run()
            processes[slot] = process
        }

        for slot in 0..<machines { try start(slot) }
        let begin = Date()
        var restarted = false
        var kills = 0
        while Date().timeIntervalSince(begin) < seconds {
            Thread.sleep(forTimeInterval: 0.5)
            if !restarted && Date().timeIntervalSince(begin) > seconds / 2
                && ProcessInfo.processInfo.environment["MSAL_CHAOS_NO_RESTART"] == nil
            {
                let stopped = Date().timeIntervalSince1970
                server.stop()
                try server.start()
                restarted = true
                print("RESTART \(stopped) to \(Date().timeIntervalSince1970)")
            }
            if Bool.random() {
                let slot = Int.random(in: 0..<machines)
                if let process = processes[slot], process.isRunning {
                    kill(process.processIdentifier, SIGKILL)
                    process.waitUntilExit()
                    kills += 1
                }
                try start(slot)
            }
        }
        _ = FileManager.default.createFile(atPath: stopFile, contents: Data())
        for process in processes.values {
            let deadline = Date().addingTimeInterval(30)
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            XCTAssertFalse(process.isRunning, "a machine did not stop")
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .exit)
        }

        var saved = Set<String>()
        var removed = Set<String>()
        var errors: [Int: Int] = [:]
        var uncertain = Set<String>()
        var removing = Set<String>()
        let files = try FileManager.default.contentsOfDirectory(atPath: server.folder.path).filter {
            $0.hasSuffix(".out")
        }
        for file in files {
            let text = try String(contentsOfFile: server.folder.appendingPathComponent(file).path, encoding: .utf8)
            for line in text.split(separator: "\n") {
                let parts = line.split(separator: " ")
                guard parts.count >= 2 else { continue }
                switch parts[0] {
                case "SAVED": saved.insert(String(parts[1]))
                case "REMOVED": removed.insert(String(parts[1]))
                case "REMOVING": removing.insert(String(parts[1]))
                case "ERROR":
                    errors[Int(parts[1]) ?? 0, default: 0] += 1
                    if parts.count >= 3 { uncertain.insert(String(parts[2])) }
                default: break
                }
            }
        }
        // MSALRedisCache's codes, and the core's "changed under each attempt" (-42008, after
        // cacheConfig.lockTimeout of conflicts: eight machines writing without pause contend hard).
        let documented = Set(
            MSALRedisCacheError.allCases.map(\.rawValue) + [MSALInternalError.internalErrorUnexpected.rawValue])
        for code in errors.keys { XCTAssertTrue(documented.contains(code), "undocumented error code \(code)") }
        let reader = TokenCache(
            settings: CacheSettings(
                location: .custom(
                    try MSALRedisCacheStorage(
                        connection: MSALRedisConnectionConfig(host: "127.0.0.1", port: server.port), cacheName: "chaos")
                )))
        // Signed in: has a refresh token (removeAccount keeps the Account record, marked signed out).
        let present = Set(
            try reader.readBlocking { $0.refreshTokens.values.map { String($0.homeAccountId.prefix { $0 != "." }) } })
        XCTAssertGreaterThan(saved.count, 100, "the machines made progress")
        XCTAssertTrue(restarted)
        XCTAssertGreaterThan(kills, 0)
        // A removal begun and neither acknowledged nor failed: its worker was killed during it.
        uncertain.formUnion(removing.subtracting(removed))
        let lost = saved.subtracting(removed).subtracting(uncertain).subtracting(present)
        if !lost.isEmpty {
            let accounts = Set(try reader.readBlocking { $0.accounts.values.map(\.localAccountId) })
            for uid in lost {
                let worker = String(uid.prefix { $0 != "-" })
                let generation = worker.split(separator: "g").last.map(String.init) ?? ""
                let text =
                    (try? String(
                        contentsOfFile: server.folder.appendingPathComponent("worker-\(generation).out").path,
                        encoding: .utf8)) ?? ""
                print("LOST \(uid): account record \(accounts.contains(uid)); worker output:\n\(text.prefix(3000))")
            }
        }
        XCTAssertEqual(lost, [], "\(lost.count) acknowledged saves lost")
        XCTAssertEqual(removed.intersection(present), [], "acknowledged removals undone")
        print(
            "chaos: \(saved.count) saves, \(removed.count) removals acknowledged, \(kills) kills, errors \(errors)")
    }
}
