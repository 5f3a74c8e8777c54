import Foundation
import XCTest

@testable import MSAL

/// A key store whose probe succeeds or fails as told, counting what is asked of it.
private final class StubKeyStore: MSALCacheKeyStore, @unchecked Sendable {
    let storeDescription: String
    let failure: String?
    var keyCalls = 0

    init(_ description: String, failure: String? = nil) {
        storeDescription = description
        self.failure = failure
    }

    func loadKey() throws -> Data? {
        keyCalls += 1
        return nil
    }

    func storeKey(_ key: Data) throws { keyCalls += 1 }

    func probe() throws {
        if let failure { throw CacheStorageError.keyStoreFailed(store: storeDescription, reason: failure) }
    }
}

final class CacheStatusTests: XCTestCase {
    func testAPlaintextFileIsNamedWithTheStoreThatWouldWork() {
        let config = MSALCacheConfig()
        config.cacheFileURL = URL(fileURLWithPath: "/tmp/nowhere/msal_cache.json")
        let locked = StubKeyStore("desktop keyring", failure: "the collection default is locked; unlock it")
        let kernel = StubKeyStore("kernel keyring @u")
        let status = MSALCacheStatus.check(config, candidates: [locked, kernel])
        XCTAssertEqual(status.storage, .plaintextFile)
        XCTAssertEqual(status.cacheFileURL?.path, "/tmp/nowhere/msal_cache.json")
        XCTAssertEqual(status.candidates.map(\.isAvailable), [false, true])
        XCTAssertTrue(status.candidates[0].problem?.contains("locked; unlock it") ?? false, "\(status.candidates[0])")
        XCTAssertNil(status.candidates[1].problem)
        XCTAssertEqual(status.candidates.map(\.isActive), [false, false])
        XCTAssertTrue(status.advice?.contains("kernel keyring @u (cacheConfig.encryptionKeyStore)") ?? false)
        XCTAssertEqual(locked.keyCalls + kernel.keyCalls, 0, "probes never read or write the cache's key")
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/tmp/nowhere"), "nor touch the cache")
    }

    func testTheStoreInUseIsProbedAndItsFailureIsTheAdvice() {
        let config = MSALCacheConfig()
        let broken = StubKeyStore("desktop keyring", failure: "no D-Bus session bus here")
        config.encryptionKeyStore = broken
        let status = MSALCacheStatus.check(config, candidates: [StubKeyStore("kernel keyring @u")])
        XCTAssertEqual(status.storage, .encryptedFileWithKeyStore)
        XCTAssertEqual(status.candidates.map(\.storeDescription), ["desktop keyring", "kernel keyring @u"])
        XCTAssertEqual(status.candidates.map(\.isActive), [true, false])
        XCTAssertTrue(status.advice?.contains("no D-Bus session bus here") ?? false, status.advice ?? "")
    }

    func testNothingToDoWhenTheCacheIsProtected() {
        let config = MSALCacheConfig()
        config.encryptionKey = Data(repeating: 1, count: 32)
        XCTAssertEqual(MSALCacheStatus.check(config).storage, .encryptedFileWithKey)
        XCTAssertNil(MSALCacheStatus.check(config).advice)
        let memory = MSALCacheConfig()
        memory.inMemoryOnly = true
        XCTAssertEqual(MSALCacheStatus.check(memory).storage, .memory)
        XCTAssertNil(MSALCacheStatus.check(memory).cacheFileURL)
    }

    func testTheServerDateIsAnIMFFixdate() {
        XCTAssertEqual(ServerClock.parse("Sun, 06 Nov 1994 08:49:37 GMT")?.timeIntervalSince1970, 784_111_777)
        XCTAssertNil(ServerClock.parse("yesterday"))
    }
}
