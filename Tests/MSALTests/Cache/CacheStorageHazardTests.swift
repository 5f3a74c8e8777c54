import Foundation
import Glibc
import MSALNative
import XCTest

@testable import MSAL

/// What careless environments and neighbouring apps do to the cache path (issue 19), one process.
final class CacheStorageHazardTests: XCTestCase {
    private var folder: URL!

    override func setUp() {
        folder = CacheFixtures.temporaryFolder()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    private func fileCache(_ path: String, lockTimeout: Double = 2) -> TokenCache {
        TokenCache(settings: CacheSettings(location: .file(path: path, isDefault: false), lockTimeout: lockTimeout))
    }

    private func message(_ error: any Error) -> String {
        (error as NSError).userInfo[MSALErrorDescriptionKey] as? String ?? ""
    }

    private func names() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    /// Runs `body` on another thread; fails (instead of hanging the suite) when it does not return
    /// within `bound` seconds, then calls `unblock` so the thread can end.
    private func returns<T: Sendable>(
        within bound: Double, unblock: () -> Void = {}, _ body: @escaping @Sendable () -> T
    ) -> T? {
        let result = Locked<T?>(nil)
        let done = expectation(description: "returned")
        Thread.detachNewThread {
            result.withLock { $0 = body() }
            done.fulfill()
        }
        if XCTWaiter.wait(for: [done], timeout: bound) != .completed {
            XCTFail("blocked for more than \(bound) s")
            unblock()
            _ = XCTWaiter.wait(for: [done], timeout: 10)
        }
        return result.withLock { $0 }
    }

    // MARK: Non-regular files

    func testAFIFOAtTheCachePathIsRefusedWithoutHanging() throws {
        let cachePath = path("cache.json")
        XCTAssertEqual(mkfifo(cachePath, 0o600), 0)
        let cache = fileCache(cachePath)
        let readError = returns(
            within: 20,
            unblock: {
                // A writer end lets a blocked reader's open return.
                let writer = open(cachePath, O_WRONLY | O_NONBLOCK)
                if writer >= 0 { close(writer) }
            },
            { () -> String? in
                do {
                    _ = try cache.readBlocking { $0.counts.accounts }
                    return nil
                } catch {
                    return (error as NSError).userInfo[MSALErrorDescriptionKey] as? String ?? ""
                }
            })
        let text = try XCTUnwrap(readError ?? nil, "reading a FIFO is an error")
        XCTAssertTrue(text.contains(cachePath), text)
        XCTAssertTrue(text.contains("FIFO"), text)
        XCTAssertThrowsError(try cache.modifyBlocking { $0.save(CacheFixtures.response()) }) { error in
            XCTAssertTrue(message(error).contains("FIFO"), message(error))
        }
        XCTAssertEqual(try FileSystem.linkStatus(cachePath)?.kind, .fifo, "never renamed nor replaced")
        XCTAssertFalse(names().contains { $0.contains("corrupt") }, "\(names())")
    }

    func testACharacterDeviceBehindALinkIsRefusedAndNeverReplaced() throws {
        let cachePath = path("cache.json")
        XCTAssertEqual(symlink("/dev/null", cachePath), 0)
        let cache = fileCache(cachePath)
        XCTAssertThrowsError(try cache.readBlocking { $0.counts.accounts }) { error in
            XCTAssertTrue(message(error).contains("character device"), message(error))
            XCTAssertTrue(message(error).contains(cachePath), message(error))
        }
        XCTAssertThrowsError(try cache.modifyBlocking { $0.save(CacheFixtures.response()) }) { error in
            XCTAssertTrue(message(error).contains("character device"), message(error))
        }
        XCTAssertEqual(try FileSystem.linkStatus(cachePath)?.kind, .symbolicLink)
        XCTAssertEqual(try FileSystem.linkTarget(cachePath), "/dev/null")
        XCTAssertEqual(try FileSystem.status("/dev/null")?.kind, .characterDevice)
        XCTAssertFalse(names().contains { $0.contains("corrupt") }, "\(names())")
    }

    func testAFolderAtTheCachePathIsRefused() throws {
        let cachePath = path("cache.json")
        try FileManager.default.createDirectory(atPath: cachePath, withIntermediateDirectories: false)
        let cache = fileCache(cachePath)
        XCTAssertThrowsError(try cache.readBlocking { $0.counts.accounts }) { error in
            XCTAssertTrue(message(error).contains("a directory"), message(error))
        }
        XCTAssertThrowsError(try cache.modifyBlocking { $0.save(CacheFixtures.response()) })
        XCTAssertEqual(try FileSystem.linkStatus(cachePath)?.kind, .directory)
    }

    // MARK: A removed lock file

    /// How many descriptors of this process have `path` open (from /proc/self/fd).
    private func openDescriptors(of path: String) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.filter {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == path
        }
        .count
    }

    func testAWaiterWhoseLockFileWasRemovedLocksTheFileNowAtThePath() throws {
        let lockPath = path("cache.json.lock")
        let holder = try XCTUnwrap(LockFile.open(lockPath))
        XCTAssertTrue(try holder.tryLock())
        let waiter = Locked<FileLock?>(nil)
        let done = expectation(description: "locked")
        Thread.detachNewThread {
            var acquisition = FileLock.Acquisition(path: lockPath)
            var wait = LockWait(timeout: 20, backoff: .fileLock)
            let lock = try? wait.blocking { () throws(CacheStorageError) -> LockWait.Attempt<FileLock> in
                try acquisition.attempt().map { .taken($0) } ?? .wait(.fileLock)
            }
            waiter.withLock { $0 = lock }
            done.fulfill()
        }
        // The waiter has the old file open and polls its lock...
        while openDescriptors(of: lockPath) < 2 { usleep(1_000) }
        // ...when a cleaner removes it and a newcomer locks a new file of that name.
        XCTAssertTrue(try FileSystem.remove(lockPath))
        let newcomer = try XCTUnwrap(LockFile.open(lockPath))
        XCTAssertTrue(try newcomer.tryLock())
        holder.unlock()
        // The waiter gets the old file's lock, sees it is no longer at the path, and waits for
        // the newcomer's instead of going ahead beside it.
        newcomer.unlock()
        wait(for: [done], timeout: 30)
        let lock = try XCTUnwrap(waiter.withLock { $0 })
        XCTAssertTrue(lock.isStillAtPath, "holds the lock of the file at the path")
        XCTAssertFalse(try newcomer.tryLock(), "so the newcomer's file is the one locked")
    }

    // MARK: Links

    func testPlantedLinksAtTheLockNamesCreateNothingElsewhere() throws {
        let cachePath = path("cache.json")
        let elsewhere = path("elsewhere")
        XCTAssertEqual(symlink(elsewhere + "-lock", cachePath + ".lock"), 0)
        XCTAssertThrowsError(try fileCache(cachePath).modifyBlocking { $0.save(CacheFixtures.response()) }) { error in
            XCTAssertTrue(message(error).contains(cachePath + ".lock"), message(error))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: elsewhere + "-lock"))

        try FileManager.default.removeItem(atPath: cachePath + ".lock")
        XCTAssertEqual(symlink(elsewhere + "-lockfile", cachePath + ".lockfile"), 0)
        XCTAssertEqual(symlink(elsewhere + "-refresh", cachePath + ".refresh.lock"), 0)
        let cache = fileCache(cachePath, lockTimeout: 0.5)
        XCTAssertThrowsError(try cache.modifyBlocking { $0.save(CacheFixtures.response()) })
        XCTAssertFalse(FileManager.default.fileExists(atPath: elsewhere + "-lockfile"))
        let refresh = RefreshLock(cacheFilePath: cachePath)
        let ran = Locked(false)
        let done = expectation(description: "refreshed")
        Task {
            try await refresh.withLock(key: "k", timeout: 1) { ran.withLock { $0 = true } }
            done.fulfill()
        }
        wait(for: [done], timeout: 20)
        XCTAssertTrue(ran.withLock { $0 })
        XCTAssertFalse(FileManager.default.fileExists(atPath: elsewhere + "-refresh"))
    }

    func testACacheFileThatIsASymlinkStaysOne() throws {
        let dotfiles = path("dotfiles")
        try FileManager.default.createDirectory(atPath: dotfiles, withIntermediateDirectories: false)
        let target = dotfiles + "/msal_cache.json"
        try Data(CacheFixtures.pythonDocument.utf8).write(to: URL(fileURLWithPath: target))
        let cachePath = path("cache.json")
        XCTAssertEqual(symlink("dotfiles/msal_cache.json", cachePath), 0)

        try fileCache(cachePath).modifyBlocking { $0.save(CacheFixtures.response(uid: "bob")) }
        XCTAssertEqual(try FileSystem.linkStatus(cachePath)?.kind, .symbolicLink)
        XCTAssertEqual(try FileSystem.linkTarget(cachePath), "dotfiles/msal_cache.json")
        let again = fileCache(target)
        XCTAssertEqual(try again.readBlocking { $0.counts.accounts }, 2, "the target holds the new document")
        XCTAssertFalse(names().contains { $0.contains(".tmp-") }, "\(names())")
        let besideTarget = try FileManager.default.contentsOfDirectory(atPath: dotfiles)
        XCTAssertFalse(besideTarget.contains { $0.contains(".tmp-") }, "\(besideTarget)")
    }

    // MARK: Quarantine

    func testACorruptFileIsReportedWithItsNewPath() throws {
        let cachePath = path("cache.json")
        try Data("{\"AccessToken\": {\"x\": ".utf8).write(to: URL(fileURLWithPath: cachePath))
        let lines = Locked<[String]>([])
        MSALGlobalConfig.loggerConfig.logLevel = .warning
        MSALGlobalConfig.loggerConfig.setLogCallback { level, message, _ in
            if level == .warning || level == .error { lines.withLock { $0.append(message ?? "") } }
        }
        defer {
            MSALGlobalConfig.loggerConfig.removeLogCallback()
            MSALGlobalConfig.loggerConfig.logLevel = .info
        }
        let cache = fileCache(cachePath)
        XCTAssertEqual(try cache.readBlocking { $0.counts.accounts }, 0)
        let report = try XCTUnwrap(cache.takeQuarantines().first)
        XCTAssertEqual(report.path, cachePath)
        let moved = try XCTUnwrap(report.movedTo)
        XCTAssertTrue(moved.hasPrefix(cachePath + ".corrupt-"), moved)
        XCTAssertTrue(FileManager.default.fileExists(atPath: moved))
        XCTAssertTrue(cache.takeQuarantines().isEmpty, "reported once")
        XCTAssertTrue(lines.withLock { $0 }.contains { $0.contains("corrupt") }, "\(lines.withLock { $0 })")
    }

    func testAPlainDocumentWithAByteOrderMarkIsAcceptedWhenAKeyIsConfigured() throws {
        let cachePath = path("cache.json")
        try Data([0xEF, 0xBB, 0xBF] + documentWith(["alice"])).write(to: URL(fileURLWithPath: cachePath))
        let key = [UInt8](repeating: 7, count: 32)
        let cache = TokenCache(
            settings: CacheSettings(location: .file(path: cachePath, isDefault: false), encryptionKey: key))
        XCTAssertEqual(try cache.readBlocking { $0.counts.accounts }, 1, "not mistaken for a damaged encrypted file")
    }

    // MARK: In-place writers (MSAL Python's extension)

    /// Holds `<cache>.lockfile` as msal-extensions does: exclusive creation, flock, "<pid> <argv0>".
    private func holdExtensionsLock(_ cachePath: String) throws -> LockFile {
        XCTAssertTrue(try FileSystem.createExclusively(cachePath + ".lockfile", contents: []))
        let lock = try XCTUnwrap(LockFile.open(cachePath + ".lockfile", create: false))
        XCTAssertTrue(try lock.tryLock())
        try lock.replaceContents(Array("\(getpid()) python".utf8))
        return lock
    }

    private func releaseExtensionsLock(_ lock: LockFile, _ cachePath: String) throws {
        lock.unlock()
        try FileSystem.remove(cachePath + ".lockfile")
    }

    /// Waits until our own lock of `cachePath` is held (by the cache under test, now waiting for
    /// the extension's lock) or `finished` is set.
    private func awaitOwnLockHeldOrFinished(_ cachePath: String, _ finished: Locked<Bool>) throws {
        while !finished.withLock({ $0 }) {
            if let own = try? LockFile.open(cachePath + ".lock", create: false), try !own.tryLock() { return }
            usleep(1_000)
        }
    }

    private func documentWith(_ uids: [String]) throws -> [UInt8] {
        var store = TokenStore()
        for uid in uids { store.save(CacheFixtures.response(uid: uid, accessToken: "at-\(uid)")) }
        return CacheDocument.write(store)
    }

    func testAFileBeingRewrittenInPlaceIsReadAgainUnderTheLockBeforeItCountsAsCorrupt() throws {
        let cachePath = path("cache.json")
        let whole = try documentWith(["alice"])
        try Data(whole.prefix(whole.count / 2)).write(to: URL(fileURLWithPath: cachePath))
        let lock = try holdExtensionsLock(cachePath)
        let cache = fileCache(cachePath, lockTimeout: 20)
        let finished = Locked(false)
        let accounts = Locked<Int?>(nil)
        let done = expectation(description: "read")
        Thread.detachNewThread {
            accounts.withLock { $0 = try? cache.readBlocking { $0.counts.accounts } }
            finished.withLock { $0 = true }
            done.fulfill()
        }
        try awaitOwnLockHeldOrFinished(cachePath, finished)
        // The in-place writer finishes its document, then releases.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: cachePath))
        try handle.write(contentsOf: whole)
        try handle.close()
        try releaseExtensionsLock(lock, cachePath)
        wait(for: [done], timeout: 30)
        XCTAssertEqual(accounts.withLock { $0 }, 1)
        XCTAssertFalse(names().contains { $0.contains("corrupt") }, "\(names())")
    }

    func testAnEmptyFileSeenWithoutTheLockIsReadAgainUnderIt() throws {
        let cachePath = path("cache.json")
        try Data(documentWith(["alice"])).write(to: URL(fileURLWithPath: cachePath))
        let cache = fileCache(cachePath, lockTimeout: 20)
        XCTAssertEqual(try cache.readBlocking { $0.counts.accounts }, 1)
        let lock = try holdExtensionsLock(cachePath)
        XCTAssertEqual(truncate(cachePath, 0), 0, "msal-extensions opens the file with O_TRUNC")
        let finished = Locked(false)
        let accounts = Locked<Int?>(nil)
        let done = expectation(description: "read")
        Thread.detachNewThread {
            accounts.withLock { $0 = try? cache.readBlocking { $0.counts.accounts } }
            finished.withLock { $0 = true }
            done.fulfill()
        }
        try awaitOwnLockHeldOrFinished(cachePath, finished)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: cachePath))
        try handle.write(contentsOf: documentWith(["alice", "bob"]))
        try handle.close()
        try releaseExtensionsLock(lock, cachePath)
        wait(for: [done], timeout: 30)
        XCTAssertEqual(accounts.withLock { $0 }, 2)
    }

    func testAWriteWaitsForTheExtensionsLockAndLosesNothingOfItsWriter() throws {
        let cachePath = path("cache.json")
        try Data(documentWith(["seed"])).write(to: URL(fileURLWithPath: cachePath))
        let before = try XCTUnwrap(FileSystem.status(cachePath))
        // The Python app takes its lock, reads the file...
        let lock = try holdExtensionsLock(cachePath)
        let pythonDocument = try documentWith(["seed", "python"])
        // ...and a write of ours meanwhile waits (here until its bound), writing nothing.
        XCTAssertThrowsError(
            try fileCache(cachePath, lockTimeout: 0.3).modifyBlocking {
                $0.save(CacheFixtures.response(uid: "early", accessToken: "at-early"))
            }
        ) { error in
            XCTAssertTrue(message(error).contains(cachePath + ".lockfile"), message(error))
        }
        XCTAssertTrue(try XCTUnwrap(FileSystem.status(cachePath)).isSameFile(as: before), "not replaced")
        // The Python app rewrites the file in place, then releases.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: cachePath))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: pythonDocument)
        try handle.close()
        try releaseExtensionsLock(lock, cachePath)
        try fileCache(cachePath).modifyBlocking {
            $0.save(CacheFixtures.response(uid: "swift", accessToken: "at-swift"))
        }
        let uids = Set(try fileCache(cachePath).readBlocking { $0.accounts.values.map(\.homeAccountId) })
        XCTAssertEqual(uids.count, 3, "\(uids)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: cachePath + ".lockfile"), "released and removed")
    }

    func testAStaleExtensionsLockOfAKilledWriterIsTakenOver() throws {
        let cachePath = path("cache.json")
        let exited = Process()
        exited.executableURL = URL(fileURLWithPath: "/bin/true")
        try exited.run()
        exited.waitUntilExit()
        XCTAssertTrue(
            try FileSystem.createExclusively(
                cachePath + ".lockfile", contents: Array("\(exited.processIdentifier) /usr/bin/az".utf8)))
        let cache = fileCache(cachePath, lockTimeout: 3)
        try cache.modifyBlocking { $0.save(CacheFixtures.response(uid: "after-kill")) }
        XCTAssertEqual(try fileCache(cachePath).readBlocking { $0.counts.accounts }, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: cachePath + ".lockfile"))
    }

    // MARK: Temporary files

    private func setAge(_ path: String, minutes: Double) throws {
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-minutes * 60)], ofItemAtPath: path)
    }

    func testTheSweepKeepsLockedTemporaryFilesWhateverTheirPID() throws {
        let cachePath = path("cache.json")
        let sleeping = Process()
        sleeping.executableURL = URL(fileURLWithPath: "/bin/sleep")
        sleeping.arguments = ["30"]
        try sleeping.run()
        defer {
            sleeping.terminate()
            sleeping.waitUntilExit()
        }
        let live = sleeping.processIdentifier
        // 999999: a PID that does not exist here, as a writer's in another PID namespace.
        let lockedOfAnotherNamespace = path(".cache.json.tmp-999999-1")
        let killed = path(".cache.json.tmp-999998-2")
        let recentOfLivePID = path(".cache.json.tmp-\(live)-3")
        let ancientOfLivePID = path(".cache.json.tmp-\(live)-4")
        for file in [lockedOfAnotherNamespace, killed, recentOfLivePID, ancientOfLivePID] {
            XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data("{".utf8)))
        }
        try setAge(lockedOfAnotherNamespace, minutes: 30)
        try setAge(killed, minutes: 1)
        try setAge(recentOfLivePID, minutes: 5)
        try setAge(ancientOfLivePID, minutes: 30)
        let writer = try XCTUnwrap(LockFile.open(lockedOfAnotherNamespace, create: false))
        XCTAssertTrue(try writer.tryLock())

        try fileCache(cachePath).modifyBlocking { $0.save(CacheFixtures.response()) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: lockedOfAnotherNamespace), "its writer holds its lock")
        XCTAssertFalse(FileManager.default.fileExists(atPath: killed), "unlocked, its writer gone")
        XCTAssertTrue(FileManager.default.fileExists(atPath: recentOfLivePID), "unlocked, but its PID is here")
        XCTAssertFalse(FileManager.default.fileExists(atPath: ancientOfLivePID), "unlocked and 30 minutes old")
    }

    // MARK: Refresh lock

    /// Whether another process can take the byte at `offset` of `path` now.
    private static func isFreeForAnotherProcess(_ path: String, offset: Int) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            "-c",
            "import fcntl, os, sys\nfd = os.open(sys.argv[1], os.O_RDWR)\ntry:\n"
                + "    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, int(sys.argv[2]))\n    print('free')\n"
                + "except OSError:\n    print('busy')\n",
            path, String(offset),
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text.trimmingCharacters(in: .whitespacesAndNewlines) == "free"
    }

    func testTwoRefreshLocksOfOneFileInOneProcessKeepEachOthersLocks() async throws {
        let cachePath = path("cache.json")
        let lockPath = cachePath + ".refresh.lock"
        let key = "refresh-of-one-token"
        let holder = RefreshLock(cacheFilePath: cachePath)
        let busyWhileHeld = try await holder.withLock(key: key, timeout: 5) { () async throws -> Bool in
            // Another app object on the same file comes and goes meanwhile.
            var passing: RefreshLock? = RefreshLock(cacheFilePath: cachePath)
            _ = try await passing!.withLock(key: "another-token", timeout: 5) { 1 }
            passing = nil
            return try !Self.isFreeForAnotherProcess(lockPath, offset: RefreshLock.offset(for: key))
        }
        XCTAssertTrue(busyWhileHeld, "the holder's lock survives the other's close")
    }
}
