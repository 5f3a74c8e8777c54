import Foundation
import Glibc
import MSALNative
import XCTest

@testable import MSAL

/// Eight processes hammer one cache file while the test kills one of them with SIGKILL every few
/// hundred milliseconds and starts a replacement. Throughout, the file on disk always parses; at
/// the end, every write a worker acknowledged (its `modify` returned) is in the file, or a later
/// write of the same worker slot is. `MSAL_SOAK_SECONDS` sets the duration (default 60).
final class FaultCacheSoakTests: XCTestCase {
    private static let slots = 8
    private static let accountsPerSlot = 20
    private static let tenant = "5c1b3e8a-0000-4000-8000-000000000001"

    /// The worker: runs only when started by the test below (the test bundle run again).
    func testSoakWorkerEntryPoint() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let path = environment["MSAL_SOAK_WORKER_PATH"], let slot = Int(environment["MSAL_SOAK_SLOT"] ?? ""),
            let generation = Int(environment["MSAL_SOAK_GENERATION"] ?? "")
        else { return }
        // A long lock bound: on a loaded 2-core machine a worker may wait long for its turn.
        let cache = TokenCache(settings: CacheSettings(location: .file(path: path, isDefault: false), lockTimeout: 600))
        var index = 0
        while true {  // until killed
            let account = index % Self.accountsPerSlot
            let secret = Self.secret(slot: slot, generation: generation, index: index)
            try cache.modifyBlocking { $0.save(Self.record(slot: slot, account: account, accessToken: secret)) }
            FileHandle.standardOutput.write(Data("ack \(account) \(secret)\n".utf8))
            index += 1
        }
    }

    private static func secret(slot: Int, generation: Int, index: Int) -> String {
        String(format: "at-%d-%05d-%09d", slot, generation, index)
    }

    private static func homeAccountId(slot: Int, account: Int) -> String {
        String(format: "00000000-0000-4000-8000-%06d%06d", slot, account) + ".\(tenant)"
    }

    private static func record(slot: Int, account: Int, accessToken: String) -> TokenResponseRecord {
        let homeAccountId = homeAccountId(slot: slot, account: account)
        var record = TokenResponseRecord(
            clientId: "04b07795-8ddb-461a-bbee-02f9e1bf7b46", environment: "login.microsoftonline.com", realm: tenant,
            homeAccountId: homeAccountId, localAccountId: String(homeAccountId.prefix(36)),
            username: "soak-\(slot)-\(account)@contoso.com")
        let now = Int64(Date().timeIntervalSince1970)
        record.accessToken = accessToken
        record.scopes = ["User.Read"]
        record.cachedAt = now
        record.expiresOn = now + 3600
        record.extendedExpiresOn = now + 3600
        record.refreshToken = "rt-" + accessToken
        record.idToken = "idtoken-\(slot)-\(account)"
        return record
    }

    /// One running worker and what it acknowledged.
    private final class Worker: @unchecked Sendable {
        // @unchecked: `acked` is behind a lock; the rest is set once.
        let process = Process()
        let slot: Int
        let reader: Thread
        /// Account number -> the latest acknowledged secret.
        let acked = Locked<[Int: String]>([:])
        let done = DispatchSemaphore(value: 0)

        init(path: String, slot: Int, generation: Int) throws {
            self.slot = slot
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["MSALIntegrationTests.FaultCacheSoakTests/testSoakWorkerEntryPoint"]
            var environment = ProcessInfo.processInfo.environment
            environment["MSAL_SOAK_WORKER_PATH"] = path
            environment["MSAL_SOAK_SLOT"] = String(slot)
            environment["MSAL_SOAK_GENERATION"] = String(generation)
            process.environment = environment
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            let handle = output.fileHandleForReading
            let acked = self.acked
            let done = self.done
            reader = Thread {
                var pending = Data()
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    pending.append(chunk)
                    while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                        let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                        pending.removeSubrange(pending.startIndex...newline)
                        let fields = line.split(separator: " ")
                        if fields.count == 3, fields[0] == "ack", let account = Int(fields[1]) {
                            acked.withLock { $0[account] = String(fields[2]) }
                        }
                    }
                }
                done.signal()
            }
            try process.run()
            reader.start()
        }

        /// Kills the worker and waits until its output is read to the end.
        func kill() {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            done.wait()
        }
    }

    func testEightProcessesWithRandomKillsNeverCorruptTheFileOrLoseAnAcknowledgedWrite() throws {
        let seconds = Double(ProcessInfo.processInfo.environment["MSAL_SOAK_SECONDS"] ?? "") ?? 60
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let folder = directory.url
        let path = folder.appendingPathComponent("cache.json").path

        var generations = Array(repeating: 0, count: Self.slots)
        var workers = try (0..<Self.slots).map { try Worker(path: path, slot: $0, generation: 0) }
        /// Slot -> account -> the latest acknowledged secret of every generation so far.
        var acknowledged = Array(repeating: [Int: String](), count: Self.slots)
        var random = SystemRandomNumberGenerator()
        var kills = 0
        var reads = 0
        var unparsable = 0
        let end = Date().addingTimeInterval(seconds)
        var nextKill = Date().addingTimeInterval(Double.random(in: 0.2...0.8, using: &random))
        while Date() < end {
            usleep(50_000)
            if let data = FileManager.default.contents(atPath: path) {
                reads += 1
                if !CacheSnapshot.parse(data).parsed { unparsable += 1 }
            }
            guard Date() >= nextKill else { continue }
            let slot = Int.random(in: 0..<Self.slots, using: &random)
            workers[slot].kill()
            kills += 1
            acknowledged[slot].merge(workers[slot].acked.withLock { $0 }) { max($0, $1) }
            generations[slot] += 1
            workers[slot] = try Worker(path: path, slot: slot, generation: generations[slot])
            nextKill = Date().addingTimeInterval(Double.random(in: 0.2...0.8, using: &random))
        }
        for worker in workers {
            worker.kill()
            acknowledged[worker.slot].merge(worker.acked.withLock { $0 }) { max($0, $1) }
        }

        let data = try XCTUnwrap(FileManager.default.contents(atPath: path))
        let snapshot = CacheSnapshot.parse(data)
        XCTAssertTrue(snapshot.parsed, "the final file parses")
        XCTAssertEqual(unparsable, 0, "the file parsed at every one of \(reads) reads")
        var secretsByAccount: [String: String] = [:]
        for token in snapshot.objects("AccessToken") {
            if let account = token["home_account_id"] as? String, let secret = token["secret"] as? String {
                secretsByAccount[account] = secret
            }
        }
        var checked = 0
        for slot in 0..<Self.slots {
            for (account, secret) in acknowledged[slot] {
                let stored = secretsByAccount[Self.homeAccountId(slot: slot, account: account)]
                // Secrets sort by generation, then write index: the stored one may be later.
                XCTAssertGreaterThanOrEqual(stored ?? "", secret, "slot \(slot) account \(account): lost")
                checked += 1
            }
        }
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        print(
            "FaultCacheSoakTests: \(String(format: "%.0f", seconds)) s, \(kills) kills, \(reads) reads of the file, "
                + "\(checked) acknowledged (slot, account) writes checked, \(snapshot.count("Account")) accounts, "
                + "files left: \(leftovers.sorted())")
        // One kill every 0.2 to 0.8 s, plus the restart: at least one every 2 s even on a slow machine.
        XCTAssertGreaterThanOrEqual(kills, Int(seconds / 2), "workers were killed")
        XCTAssertGreaterThan(checked, Self.slots * Self.accountsPerSlot / 2, "workers got work done")
        XCTAssertFalse(leftovers.contains { $0.contains(".corrupt-") }, "never quarantined: \(leftovers)")
        // Each new worker removes the temporary files of killed ones, so only the last kills' remain.
        XCTAssertLessThanOrEqual(leftovers.filter { $0.contains(".tmp-") }.count, Self.slots + 1, "\(leftovers)")
    }
}
