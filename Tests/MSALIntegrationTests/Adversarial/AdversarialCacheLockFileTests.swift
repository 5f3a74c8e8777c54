import Foundation
import Glibc
import MSALNative
import XCTest

@testable import MSAL

/// The lock file removed while processes write (temp cleaners, `rm *.lock`): eight processes
/// each save 30 tokens of their own accounts while the test unlinks `<cache>.lock` every 10 to
/// 50 ms. A writer that locked a file no longer at the path must start over, so no acknowledged
/// write may be missing at the end. (msal-extensions' `<cache>.lockfile` is left alone: its
/// protocol, shared with Python apps we cannot change, does not survive that; `*.lock` does not
/// match it.)
final class AdversarialCacheLockFileTests: XCTestCase {
    private static let processes = 8
    private static let writesPerProcess = 30
    private static let tenant = "5c1b3e8a-0000-4000-8000-000000000002"

    /// The worker: runs only when started by the test below (the test bundle run again).
    func testUnlinkedLockWorkerEntryPoint() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let path = environment["MSAL_UNLINK_WORKER_PATH"],
            let worker = Int(environment["MSAL_UNLINK_WORKER"] ?? "")
        else { return }
        let cache = TokenCache(settings: CacheSettings(location: .file(path: path, isDefault: false), lockTimeout: 600))
        for index in 0..<Self.writesPerProcess {
            let secret = String(format: "at-unlink-%d-%03d", worker, index)
            try cache.modifyBlocking { $0.save(Self.record(worker: worker, index: index, accessToken: secret)) }
            FileHandle.standardOutput.write(Data("ack \(secret)\n".utf8))
        }
    }

    private static func record(worker: Int, index: Int, accessToken: String) -> TokenResponseRecord {
        let homeAccountId = String(format: "00000000-0000-4000-8000-%06d%06d", worker, index) + ".\(tenant)"
        var record = TokenResponseRecord(
            clientId: "04b07795-8ddb-461a-bbee-02f9e1bf7b46", environment: "login.microsoftonline.com", realm: tenant,
            homeAccountId: homeAccountId, localAccountId: String(homeAccountId.prefix(36)),
            username: "unlink-\(worker)-\(index)@contoso.com")
        let now = Int64(Date().timeIntervalSince1970)
        record.accessToken = accessToken
        record.scopes = ["User.Read"]
        record.cachedAt = now
        record.expiresOn = now + 3600
        record.extendedExpiresOn = now + 3600
        record.refreshToken = "rt-" + accessToken
        return record
    }

    func testNoAcknowledgedWriteIsLostWhileTheLockFileIsUnlinked() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.url.appendingPathComponent("msal_cache.json").path

        let acknowledged = Locked<[String]>([])
        let workers = try (0..<Self.processes).map { worker in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["MSALIntegrationTests.AdversarialCacheLockFileTests/testUnlinkedLockWorkerEntryPoint"]
            var environment = ProcessInfo.processInfo.environment
            environment["MSAL_UNLINK_WORKER_PATH"] = path
            environment["MSAL_UNLINK_WORKER"] = String(worker)
            process.environment = environment
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            let ended = DispatchSemaphore(value: 0)
            let handle = output.fileHandleForReading
            Thread {
                let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
                let acks = text.split(separator: "\n").filter { $0.hasPrefix("ack ") }.map { String($0.dropFirst(4)) }
                acknowledged.withLock { $0.append(contentsOf: acks) }
                ended.signal()
            }.start()
            try process.run()
            return (process, ended)
        }

        // The cleaner: unlinks the lock file every 10 to 50 ms until every worker is done.
        let stop = Locked(false)
        let unlinks = Locked(0)
        let cleanerDone = DispatchSemaphore(value: 0)
        Thread {
            var random = SystemRandomNumberGenerator()
            while !stop.withLock({ $0 }) {
                usleep(useconds_t.random(in: 10_000...50_000, using: &random))
                if unlink(path + ".lock") == 0 { unlinks.withLock { $0 += 1 } }
            }
            cleanerDone.signal()
        }.start()
        for (process, ended) in workers {
            if ended.wait(timeout: .now() + 120) == .timedOut {
                kill(process.processIdentifier, SIGKILL)
                XCTFail("a worker did not finish within 120 s")
                ended.wait()
            }
            process.waitUntilExit()
        }
        stop.withLock { $0 = true }
        cleanerDone.wait()

        let acks = acknowledged.withLock { $0 }
        let document = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        let stored = Set(
            ((document["AccessToken"] as? [String: [String: Any]]) ?? [:]).values.compactMap { $0["secret"] as? String }
        )
        let missing = acks.filter { !stored.contains($0) }.sorted()
        print(
            "AdversarialCacheLockFileTests: \(acks.count) acknowledged writes, \(unlinks.withLock { $0 }) lock files "
                + "unlinked, \(missing.count) missing")
        XCTAssertEqual(acks.count, Self.processes * Self.writesPerProcess, "every worker finished its writes")
        XCTAssertGreaterThan(unlinks.withLock { $0 }, 0, "the lock file was unlinked")
        XCTAssertEqual(missing, [], "\(missing.count) of \(acks.count) acknowledged writes are missing")
    }
}
