import Foundation
import Glibc
import XCTest

@testable import MSAL

/// The inotify watch that spares a cache read its `stat`: it must never call a changed file quiet.
final class CacheFileWatchTests: XCTestCase {
    private var folder: URL!
    private var path: String { folder.appendingPathComponent("msal_cache.json").path }

    override func setUpWithError() throws {
        folder = CacheFixtures.temporaryFolder()
        try Data("{}".utf8).write(to: URL(fileURLWithPath: path))
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    private func makeWatch() throws -> CacheFileWatch {
        try XCTUnwrap(CacheFileWatch(path: path), "inotify is not available")
    }

    /// Writes `text` into the file in place (open, truncate, write), as MSAL Python's extensions do.
    private func rewriteInPlace(_ text: String) {
        let descriptor = open(path, O_WRONLY | O_TRUNC)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        _ = text.withCString { write(descriptor, $0, strlen($0)) }
        close(descriptor)
    }

    func testQuietUntilTheFileIsRewrittenInPlace() throws {
        let watch = try makeWatch()
        XCTAssertTrue(watch.isQuiet())
        XCTAssertTrue(watch.isQuiet())
        rewriteInPlace(#"{"AccessToken":{}}"#)
        XCTAssertFalse(watch.isQuiet())
        XCTAssertTrue(watch.isQuiet(), "the events were consumed; nothing happened since")
    }

    func testReplacementByRenameAndDeletionAreSeen() throws {
        let watch = try makeWatch()
        let temporary = folder.appendingPathComponent("msal_cache.json.tmp-1").path
        try Data("{}".utf8).write(to: URL(fileURLWithPath: temporary))
        XCTAssertTrue(watch.isQuiet(), "another file of the folder is not the cache file")
        XCTAssertEqual(rename(temporary, path), 0)
        XCTAssertFalse(watch.isQuiet())
        XCTAssertTrue(watch.isQuiet())
        XCTAssertEqual(unlink(path), 0)
        XCTAssertFalse(watch.isQuiet())
    }

    func testAttributeChangesAreSeenAndOtherFilesAreNot() throws {
        let watch = try makeWatch()
        let other = folder.appendingPathComponent("msal_cache.json.lock").path
        for _ in 0..<3 {
            try Data("x".utf8).write(to: URL(fileURLWithPath: other))
        }
        XCTAssertTrue(watch.isQuiet())
        XCTAssertEqual(chmod(path, 0o600), 0)
        XCTAssertFalse(watch.isQuiet())
    }

    func testRemovedFolderBreaksTheWatchForGood() throws {
        let watch = try makeWatch()
        try FileManager.default.removeItem(at: folder)
        XCTAssertFalse(watch.isQuiet())
        XCTAssertTrue(watch.broken)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        XCTAssertFalse(watch.isQuiet(), "a broken watch never answers quiet")
    }

    func testAfterASecondTheAnswerIsLookAnyway() throws {
        let watch = try makeWatch()
        XCTAssertTrue(watch.isQuiet())
        Thread.sleep(forTimeInterval: Double(CacheFileWatch.fullCheckIntervalNanoseconds) / 1e9 + 0.05)
        XCTAssertFalse(watch.isQuiet())
        XCTAssertTrue(watch.isQuiet())
    }

    /// Through the cache: a file rewritten in place by another program right after a read is seen
    /// by the very next read, with the same size and within the same second.
    func testCacheSeesAnInPlaceRewriteOnTheNextRead() throws {
        let cache = TokenCache(settings: CacheSettings(location: .file(path: path, isDefault: false), lockTimeout: 2))
        let writer = TokenCache(
            settings: CacheSettings(
                location: .file(path: folder.appendingPathComponent("other.json").path, isDefault: false)))
        try writer.modifyBlocking { $0.save(CacheFixtures.response(uid: "alice")) }
        let aliceDocument = try String(contentsOf: folder.appendingPathComponent("other.json"), encoding: .utf8)
        try writer.modifyBlocking { $0.removeAllEntities() }
        XCTAssertEqual(try cache.readBlocking { $0.counts.accounts }, 0)
        XCTAssertEqual(try cache.readBlocking { $0.counts.accounts }, 0)
        rewriteInPlace(aliceDocument)
        XCTAssertEqual(try cache.readBlocking { $0.counts.accounts }, 1)
        rewriteInPlace("{}")
        XCTAssertEqual(try cache.readBlocking { $0.counts.accounts }, 0)
    }
    /// A process that reads its cache a few times (`msal token`) makes no inotify instance:
    /// closing one at exit waits for the kernel's grace period (about 18 ms here, longer than the
    /// command). A process that keeps reading makes the watch, and a change is then seen as before.
    func testTheWatchIsMadeOnlyByAProcessThatKeepsReading() throws {
        let cache = TokenCache(settings: CacheSettings(location: .file(path: path, isDefault: false), lockTimeout: 2))
        let before = try inotifyInstances()
        for _ in 0...TokenCache.readsBeforeWatching {
            XCTAssertEqual(try cache.readBlocking { $0.counts.accounts }, 0)
        }
        XCTAssertEqual(try inotifyInstances(), before, "a few reads, no watch")
        XCTAssertEqual(try cache.readBlocking { $0.counts.accounts }, 0)
        XCTAssertEqual(try inotifyInstances(), before + 1, "read again: watched")
        XCTAssertEqual(try cache.readBlocking { $0.counts.accounts }, 0)
        XCTAssertEqual(try inotifyInstances(), before + 1, "one watch per cache")
        let writer = TokenCache(
            settings: CacheSettings(
                location: .file(path: folder.appendingPathComponent("other.json").path, isDefault: false)))
        try writer.modifyBlocking { $0.save(CacheFixtures.response(uid: "alice")) }
        rewriteInPlace(try String(contentsOf: folder.appendingPathComponent("other.json"), encoding: .utf8))
        XCTAssertEqual(try cache.readBlocking { $0.counts.accounts }, 1)
    }

    /// The inotify instances this process holds (file descriptors on `anon_inode:inotify`).
    private func inotifyInstances() throws -> Int {
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
        return descriptors.filter {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == "anon_inode:inotify"
        }.count
    }
}
