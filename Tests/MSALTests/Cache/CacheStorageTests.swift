import Foundation
import Glibc
import XCTest

@testable import MSAL

/// An app-provided storage holding the document in memory.
private final class MemoryStorage: MSALCacheStorage, @unchecked Sendable {
    // @unchecked: `data` is only touched under `lock`.
    private let lock = NSLock()
    private var data: Data?
    var saves = 0

    func load() throws -> Data? {
        lock.lock()
        defer { lock.unlock() }
        return data
    }

    func save(_ data: Data) throws {
        lock.lock()
        defer { lock.unlock() }
        self.data = data
        saves += 1
    }
}

final class CacheStorageTests: XCTestCase {
    private var folder: URL!

    override func setUp() {
        folder = CacheFixtures.temporaryFolder()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    private func fileCache(_ path: String, key: [UInt8]? = nil, isDefault: Bool = false) -> TokenCache {
        TokenCache(
            settings: CacheSettings(
                location: .file(path: path, isDefault: isDefault), encryptionKey: key, lockTimeout: 2))
    }

    private func mode(_ path: String) -> mode_t {
        var info = stat()
        stat(path, &info)
        return info.st_mode & 0o777
    }

    func testDefaultPathAndPermissions() throws {
        let url = MSALCacheConfig.defaultCacheFileURL(keychainSharingGroup: "com.contoso.group")
        XCTAssertTrue(url.path.hasSuffix("/msal/com.contoso.group/msal_cache.json"))
        let config = MSALCacheConfig()
        XCTAssertEqual(config.keychainSharingGroup, "com.microsoft.identity.universalstorage")
        config.inMemoryOnly = true
        XCTAssertNil(config.resolvedCacheFileURL)

        let path = folder.appendingPathComponent("msal/group/msal_cache.json").path
        let cache = fileCache(path, isDefault: true)
        try cache.modifyBlocking { $0.save(CacheFixtures.response()) }
        XCTAssertEqual(mode(path), 0o600)
        XCTAssertEqual(mode((path as NSString).deletingLastPathComponent), 0o700)
        XCTAssertEqual(mode(path + ".lock"), 0o600)
        let again = fileCache(path)
        XCTAssertEqual(try again.readBlocking { $0.counts.accessTokens }, 1)
    }

    func testRewriteIsAtomicAndLeavesNoTemporaryFiles() throws {
        let path = folder.appendingPathComponent("cache.json").path
        try Data(CacheFixtures.pythonDocument.utf8).write(to: URL(fileURLWithPath: path))
        var before = stat()
        stat(path, &before)
        let cache = fileCache(path)
        try cache.modifyBlocking { $0.save(CacheFixtures.response(uid: "bob")) }
        var after = stat()
        stat(path, &after)
        XCTAssertNotEqual(before.st_ino, after.st_ino, "replaced by rename, never written in place")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        XCTAssertEqual(names, ["cache.json", "cache.json.lock"])
        // The foreign section and fields survived.
        let document = try JSONValue(parsing: Data(contentsOf: URL(fileURLWithPath: path)))
        XCTAssertNotNil(document["ForeignSection"])
        XCTAssertEqual(try cache.readBlocking { $0.counts.accounts }, 2)
    }

    func testAnotherWriterIsSeenOnNextRead() throws {
        let path = folder.appendingPathComponent("cache.json").path
        let first = fileCache(path)
        let second = fileCache(path)
        XCTAssertEqual(try first.readBlocking { $0.counts.accounts }, 0)
        try second.modifyBlocking { $0.save(CacheFixtures.response()) }
        XCTAssertEqual(try first.readBlocking { $0.counts.accounts }, 1)
        try first.modifyBlocking { $0.save(CacheFixtures.response(uid: "bob")) }
        XCTAssertEqual(try second.readBlocking { $0.counts.accounts }, 2)
    }

    func testCorruptAndTruncatedFilesAreQuarantined() throws {
        let truncated = String(CacheFixtures.pythonDocument.prefix(700))
        // A file that is not a token cache at all is refused instead (AdversarialCacheFileOwnershipTests).
        let crashed = String(repeating: "\u{0}", count: 512)
        for (index, text) in [crashed, truncated, "{\"AccessToken\": [1,"].enumerated() {
            let path = folder.appendingPathComponent("cache\(index).json").path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            let cache = fileCache(path)
            XCTAssertEqual(try cache.readBlocking { $0.counts.accessTokens }, 0)
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            let moved = try XCTUnwrap(names.first { $0.hasPrefix("cache\(index).json.corrupt-") })
            XCTAssertEqual(try String(contentsOf: folder.appendingPathComponent(moved), encoding: .utf8), text)
            try cache.modifyBlocking { $0.save(CacheFixtures.response()) }
            XCTAssertEqual(try fileCache(path).readBlocking { $0.counts.accessTokens }, 1, "the app goes on")
        }
    }

    func testEncryptedFileHoldsNoPlaintextAndNeedsTheKey() throws {
        let path = folder.appendingPathComponent("cache.json").path
        let key = [UInt8](repeating: 7, count: 32)
        try fileCache(path, key: key).modifyBlocking {
            $0.save(CacheFixtures.response(accessToken: "SECRET-ACCESS-TOKEN"))
        }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertTrue(bytes.starts(with: CacheEncryption.header))
        for needle in ["SECRET-ACCESS-TOKEN", "alice", "AccessToken", CacheFixtures.uid] {
            XCTAssertNil(bytes.range(of: Data(needle.utf8)), needle)
        }
        XCTAssertEqual(try fileCache(path, key: key).readBlocking { $0.counts.accessTokens }, 1)

        for wrong in [[UInt8](repeating: 8, count: 32), nil] {
            XCTAssertThrowsError(try fileCache(path, key: wrong).readBlocking { $0.counts.accessTokens }) { error in
                let error = error as NSError
                XCTAssertEqual(error.domain, MSALErrorDomain)
                XCTAssertTrue((error.userInfo[MSALErrorDescriptionKey] as? String ?? "").contains("left untouched"))
            }
            XCTAssertThrowsError(try fileCache(path, key: wrong).modifyBlocking { $0.save(CacheFixtures.response()) })
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), bytes, "the file is untouched")
        }
        // Tampering with any byte, header included, is detected.
        for offset in [3, bytes.count / 2, bytes.count - 1] {
            var tampered = bytes
            tampered[offset] ^= 1
            try tampered.write(to: URL(fileURLWithPath: path))
            XCTAssertThrowsError(try fileCache(path, key: key).readBlocking { $0.counts.accessTokens })
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), tampered)
        }
    }

    func testCustomStorage() throws {
        let storage = MemoryStorage()
        let cache = TokenCache(settings: CacheSettings(location: .custom(storage)))
        try cache.modifyBlocking { $0.save(CacheFixtures.response()) }
        XCTAssertEqual(storage.saves, 1)
        let document = try JSONValue(parsing: XCTUnwrap(storage.load()))
        XCTAssertNotNil(document["AccessToken"])
        let other = TokenCache(settings: CacheSettings(location: .custom(storage)))
        XCTAssertEqual(try other.readBlocking { $0.counts.accounts }, 1)

        // With a key, the plaintext document is refused until it is encrypted explicitly.
        let key = (0..<32).map { UInt8($0 * 7 + 3) }
        let encrypted = TokenCache(settings: CacheSettings(location: .custom(storage), encryptionKey: key))
        XCTAssertThrowsError(try encrypted.modifyBlocking { $0.save(CacheFixtures.response(uid: "bob")) })
        XCTAssertEqual(storage.saves, 1)
        XCTAssertTrue(try storage.encryptPlaintextDocument(with: Data(key)))
        try encrypted.modifyBlocking { $0.save(CacheFixtures.response(uid: "bob")) }
        XCTAssertEqual(try encrypted.readBlocking { $0.counts.accounts }, 2)
        XCTAssertTrue(try XCTUnwrap(storage.load()).starts(with: CacheEncryption.header))
        XCTAssertThrowsError(
            try TokenCache(settings: CacheSettings(location: .custom(storage))).readBlocking { $0.counts.accounts })
    }

    func testInMemoryConfigSnapshot() throws {
        let config = MSALCacheConfig()
        config.inMemoryOnly = true
        let cache = TokenCache(settings: config.settings())
        try cache.modifyBlocking { $0.save(CacheFixtures.response()) }
        XCTAssertNil(cache.coordinationPath)
        XCTAssertEqual(try cache.readBlocking { $0.counts.accessTokens }, 1)
    }

    func testLockTimeoutIsAClearError() throws {
        let path = folder.appendingPathComponent("cache.json").path
        let holder = open(path + ".lock", O_RDWR | O_CREAT, 0o600)
        defer { close(holder) }
        XCTAssertEqual(flock(holder, LOCK_EX), 0)
        let cache = TokenCache(settings: CacheSettings(location: .file(path: path, isDefault: false), lockTimeout: 0.2))
        XCTAssertThrowsError(try cache.modifyBlocking { $0.save(CacheFixtures.response()) }) { error in
            let error = error as NSError
            XCTAssertEqual(error.code, MSALError.internal.rawValue)
            XCTAssertTrue((error.userInfo[MSALErrorDescriptionKey] as? String ?? "").contains("Timed out"))
        }
        flock(holder, LOCK_UN)
        try cache.modifyBlocking { $0.save(CacheFixtures.response()) }
    }

    func testTemporaryFilesOfDeadWritersAreRemovedAndLiveOnesKept() throws {
        let path = folder.appendingPathComponent("cache.json").path
        let exited = Process()
        exited.executableURL = URL(fileURLWithPath: "/bin/true")
        try exited.run()
        exited.waitUntilExit()
        let sleeping = Process()
        sleeping.executableURL = URL(fileURLWithPath: "/bin/sleep")
        sleeping.arguments = ["30"]
        try sleeping.run()
        defer {
            sleeping.terminate()
            sleeping.waitUntilExit()
        }
        let dead = folder.appendingPathComponent(".cache.json.tmp-\(exited.processIdentifier)-1").path
        let live = folder.appendingPathComponent(".cache.json.tmp-\(sleeping.processIdentifier)-2").path
        let unrelated = folder.appendingPathComponent(".other.json.tmp-\(exited.processIdentifier)-3").path
        for file in [dead, live, unrelated] {
            XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data("{".utf8)))
        }
        // Left long ago, unlocked (``SweepDecision``); the live writer's file is young.
        for file in [dead, unrelated] {
            try FileManager.default.setAttributes(
                [.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: file)
        }

        try fileCache(path).modifyBlocking { $0.save(CacheFixtures.response()) }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dead), "a dead writer's file is removed")
        XCTAssertTrue(FileManager.default.fileExists(atPath: live), "a live writer's file is kept")
        XCTAssertTrue(FileManager.default.fileExists(atPath: unrelated), "another cache's file is kept")
    }
}

final class CacheFirstRunTests: XCTestCase {
    func testReadingWithoutAFolderIsAnEmptyCacheAndCreatesNothing() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "msal-first-run-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("group/msal_cache.json").path
        let cache = TokenCache(settings: CacheSettings(location: .file(path: path, isDefault: true)))
        XCTAssertEqual(try cache.readBlocking { $0.accounts.values.count }, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path))
        try cache.modifyBlocking { $0.save(CacheFixtures.response(uid: "u1")) }
        XCTAssertEqual(try cache.readBlocking { $0.accounts.values.count }, 1)
    }
}
