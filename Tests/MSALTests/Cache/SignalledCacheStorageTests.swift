import Foundation
import Glibc
import XCTest

@testable import MSAL

/// A keyring-like storage in memory that, as msal-extensions' persistences, touches a signal file
/// after each save.
private final class SignalledMemoryStorage: SignalledCacheStorage, @unchecked Sendable {
    // @unchecked: `data` is only touched under `lock`.
    private let lock = NSLock()
    private var data: Data?
    let signalFilePath: String

    init(signalFilePath: String) {
        self.signalFilePath = signalFilePath
    }

    func load() throws -> Data? {
        lock.withLock { data }
    }

    func save(_ data: Data) throws {
        lock.withLock { self.data = data }
        if !FileManager.default.fileExists(atPath: signalFilePath) {
            _ = FileManager.default.createFile(atPath: signalFilePath, contents: nil)
        }
        try FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: signalFilePath)
    }

    /// A write by another process: the document replaced and the signal touched.
    func replaceFromElsewhere(_ data: Data) throws {
        try save(data)
    }
}

final class SignalledCacheStorageTests: XCTestCase {
    private var folder: URL!

    override func setUp() {
        folder = CacheFixtures.temporaryFolder()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    private func signalPath() -> String {
        folder.appendingPathComponent("sub/token_cache.bin").path
    }

    func testAReadLoadsTheItemAgainOnlyWhenTheSignalFileChanged() throws {
        let storage = SignalledMemoryStorage(signalFilePath: signalPath())
        let ours = TokenCache(settings: CacheSettings(location: .custom(storage), lockTimeout: 5))
        XCTAssertEqual(try ours.readBlocking { $0.counts.accounts }, 0)

        // Another process (another cache object on the same item) signs someone in.
        let theirs = TokenCache(settings: CacheSettings(location: .custom(storage), lockTimeout: 5))
        try theirs.modifyBlocking { $0.save(CacheFixtures.response(uid: "bob")) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: signalPath()), "the save touched the signal file")
        XCTAssertEqual(try ours.readBlocking { $0.counts.accounts }, 1, "the touched signal made the read load again")

        // A document replaced without touching the signal is not seen: reads cost one stat only.
        let emptied = CacheDocument.write(TokenStore())
        try theirs.modifyBlocking { $0.save(CacheFixtures.response(uid: "carol")) }
        XCTAssertEqual(try ours.readBlocking { $0.counts.accounts }, 2)
        try storage.replaceFromElsewhere(Data(emptied))
        XCTAssertEqual(try ours.readBlocking { $0.counts.accounts }, 0)
    }

    func testAChangeWaitsForMSALExtensionsLockFileOfTheSignal() throws {
        let signal = signalPath()
        let storage = SignalledMemoryStorage(signalFilePath: signal)
        let cache = TokenCache(settings: CacheSettings(location: .custom(storage), lockTimeout: 0.3))
        try cache.modifyBlocking { $0.save(CacheFixtures.response(uid: "alice")) }
        XCTAssertFalse(FileManager.default.fileExists(atPath: signal + ".lockfile"), "released after the change")

        // A Python writer inside its CrossPlatLock: the lockfile exists, flocked, naming a live process.
        let holder = open(signal + ".lockfile", O_RDWR | O_CREAT | O_EXCL, 0o600)
        XCTAssertGreaterThanOrEqual(holder, 0)
        let text = "\(getpid()) python"
        _ = text.withCString { write(holder, $0, strlen($0)) }
        XCTAssertEqual(flock(holder, LOCK_EX), 0)
        XCTAssertThrowsError(try cache.modifyBlocking { $0.save(CacheFixtures.response(uid: "bob")) }) { error in
            let description = (error as NSError).userInfo[MSALErrorDescriptionKey] as? String ?? ""
            XCTAssertTrue(description.contains("lockfile"), description)
        }
        XCTAssertEqual(try cache.readBlocking { $0.counts.accounts }, 1, "nothing saved while msal-extensions held it")

        // Released as msal-extensions releases it: unlocked and deleted.
        unlink(signal + ".lockfile")
        flock(holder, LOCK_UN)
        close(holder)
        try cache.modifyBlocking { $0.save(CacheFixtures.response(uid: "bob")) }
        XCTAssertEqual(try cache.readBlocking { $0.counts.accounts }, 2)
    }

    func testAChangeWaitsForOurOwnLockOfTheSignal() throws {
        let signal = signalPath()
        let storage = SignalledMemoryStorage(signalFilePath: signal)
        try FileManager.default.createDirectory(
            atPath: (signal as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let holder = open(signal + ".lock", O_RDWR | O_CREAT, 0o600)
        defer { close(holder) }
        XCTAssertEqual(flock(holder, LOCK_EX), 0)
        let cache = TokenCache(settings: CacheSettings(location: .custom(storage), lockTimeout: 0.2))
        XCTAssertThrowsError(try cache.modifyBlocking { $0.save(CacheFixtures.response()) })
        flock(holder, LOCK_UN)
        try cache.modifyBlocking { $0.save(CacheFixtures.response()) }
    }

    func testTheRefreshLockIsBesideTheSignalFile() {
        let storage = SignalledMemoryStorage(signalFilePath: signalPath())
        let cache = TokenCache(settings: CacheSettings(location: .custom(storage)))
        XCTAssertEqual(cache.coordinationPath, signalPath())
        XCTAssertNil(TokenCache(settings: CacheSettings(location: .memory)).coordinationPath)
    }

    func testAnApplicationOnASignalledStorageHoldsTheCrossProcessRefreshLock() async throws {
        let signal = signalPath()
        try FileManager.default.createDirectory(
            atPath: (signal as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let configuration = MSALPublicClientApplicationConfig(clientId: CacheFixtures.clientId)
        configuration.cacheConfig.customStorage = SignalledMemoryStorage(signalFilePath: signal)
        let application = try MSALPublicClientApplication(configuration: configuration)
        let key = "refresh-of-one-token"
        let busyWhileHeld = try await application.context.withRefreshLock(key) { () async throws -> Bool in
            try !Self.isFreeForAnotherProcess(signal + ".refresh.lock", offset: RefreshLock.offset(for: key))
        }
        XCTAssertTrue(busyWhileHeld, "another process refreshing the same token waits for this one")
        XCTAssertTrue(try Self.isFreeForAnotherProcess(signal + ".refresh.lock", offset: RefreshLock.offset(for: key)))
    }

    /// Whether another process (Python's `lockf`) can take the byte `offset` of `path` now.
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
}
