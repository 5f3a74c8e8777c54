import Foundation
import MSALNative
import MSALRedisCache
import MSALRedisCacheNative
import XCTest

@testable import MSAL

/// MSALRedisCacheStorage in one process: compare-and-set versions, leases and fencing, several
/// "machines" (token caches with storages of their own) writing at once, and failures as MSAL errors.
final class RedisCacheStorageTests: XCTestCase {
    private static let clientId = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"

    private func storage(
        _ server: RedisServer, name: String = "fleet", staleness: TimeInterval = 0, ttl: TimeInterval = 3600
    )
        throws -> MSALRedisCacheStorage
    {
        try MSALRedisCacheStorage(
            connection: MSALRedisConnectionConfig(host: "127.0.0.1", port: server.port), cacheName: name,
            readStaleness: staleness, documentTimeToLive: ttl)
    }

    /// A storage of `server` that logs in as an ACL user.
    private func storage(_ server: RedisServer, user: String, password: String, name: String) throws
        -> MSALRedisCacheStorage
    {
        var connection = MSALRedisConnectionConfig(host: "127.0.0.1", port: server.port)
        connection.username = user
        connection.password = password
        return try MSALRedisCacheStorage(connection: connection, cacheName: name)
    }

    private func admin(_ server: RedisServer) throws -> RedisConnection {
        try RedisConnection(server.endpoint(), tls: nil)
    }

    static func response(uid: String, accessToken: String = "at", refreshToken: String = "rt") -> TokenResponseRecord {
        let tenant = "5c1b3e8a-0000-4000-8000-000000000001"
        var record = TokenResponseRecord(
            clientId: clientId, environment: "localhost", realm: tenant, homeAccountId: "\(uid).\(tenant)",
            localAccountId: uid, username: "\(uid)@contoso.com")
        record.accessToken = accessToken
        record.scopes = ["User.Read"]
        // Issued now: an account whose tokens expired long ago would lapse (unusedAccountLifetime).
        let now = Int64(Date().timeIntervalSince1970)
        record.cachedAt = now
        record.expiresOn = now + 3600
        record.extendedExpiresOn = now + 7200
        record.idToken = "idtoken-\(uid)"
        record.refreshToken = refreshToken
        return record
    }

    func testSavesAreCompareAndSetOnTheVersion() throws {
        let server = try RedisServer()
        let storage = try storage(server)
        XCTAssertEqual(try storage.storedVersion(), 0)
        XCTAssertEqual(try storage.loadVersioned(), MSALSharedCacheDocument(data: nil, version: 0))

        guard case .saved(let first) = try storage.save(Data("one".utf8), replacingVersion: 0, lease: nil) else {
            return XCTFail("the first save must be stored")
        }
        XCTAssertNotEqual(first, 0)
        XCTAssertEqual(try storage.save(Data("late".utf8), replacingVersion: 0, lease: nil), .conflict)
        XCTAssertEqual(
            try storage.save(Data("two".utf8), replacingVersion: first, lease: nil), .saved(version: first + 1))
        XCTAssertEqual(try storage.save(Data("stale".utf8), replacingVersion: first, lease: nil), .conflict)
        XCTAssertEqual(
            try storage.loadVersioned(), MSALSharedCacheDocument(data: Data("two".utf8), version: first + 1))
        XCTAssertEqual(try storage.load(), Data("two".utf8))
        // The document expires (documentTimeToLive), and each save sets the expiry again.
        guard case .integer(let ttl) = try admin(server).command("PTTL", "msal:{fleet}:doc") else {
            return XCTFail("PTTL must be an integer")
        }
        XCTAssertGreaterThan(ttl, 3_500_000)
        XCTAssertLessThanOrEqual(ttl, 3_600_000)
    }

    func testADocumentRecreatedAfterDataLossGetsAnUnrelatedVersion() throws {
        let server = try RedisServer()
        let storage = try storage(server)
        guard case .saved(let before) = try storage.save(Data("one".utf8), replacingVersion: 0, lease: nil) else {
            return XCTFail("save")
        }
        server.stop()
        try server.start()  // no persistence: the data is gone
        guard case .saved(let after) = try storage.save(Data("other".utf8), replacingVersion: 0, lease: nil) else {
            return XCTFail("save after restart")
        }
        XCTAssertNotEqual(before, after, "a machine still holding the old version must see the change")
    }

    func testLeaseIsExclusiveReleasedOnlyByItsHolderAndFencesSaves() throws {
        let server = try RedisServer()
        let storage = try storage(server)
        let lease = try XCTUnwrap(try storage.acquireRefreshLease(key: "account|scope"))
        XCTAssertNil(try storage.acquireRefreshLease(key: "account|scope"))
        XCTAssertNotNil(try storage.acquireRefreshLease(key: "other|scope"))

        // A stranger's token releases nothing.
        try storage.releaseRefreshLease(MSALCacheRefreshLease(key: lease.key, token: "not-the-holder"))
        XCTAssertNil(try storage.acquireRefreshLease(key: "account|scope"))

        // While held, a save under the lease is stored.
        guard case .saved(let version) = try storage.save(Data("a".utf8), replacingVersion: 0, lease: lease) else {
            return XCTFail("save under a held lease")
        }
        // The lease expires (removed here, as Redis would after its PX) and another takes it: the
        // old holder's save is fenced, whatever version it names.
        let keys = try admin(server).command("KEYS", "msal:{fleet}:lease:*")
        guard case .array(let names) = keys else { return XCTFail("KEYS") }
        for case .bulk(let name) in names { _ = try admin(server).command([Array("DEL".utf8), name]) }
        let newer = try XCTUnwrap(try storage.acquireRefreshLease(key: "account|scope"))
        XCTAssertEqual(try storage.save(Data("old".utf8), replacingVersion: version, lease: lease), .fenced)
        XCTAssertEqual(
            try storage.save(Data("new".utf8), replacingVersion: version, lease: newer), .saved(version: version + 1))
        try storage.releaseRefreshLease(newer)
        XCTAssertNotNil(try storage.acquireRefreshLease(key: "account|scope"))
    }

    func testMachinesWritingAtOnceLoseNothing() throws {
        let server = try RedisServer()
        let machines = 4
        let writes = 40
        let caches = try (0..<machines).map { _ in
            TokenCache(settings: CacheSettings(location: .custom(try storage(server))))
        }
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: machines) { machine in
            for index in 0..<writes {
                do {
                    try caches[machine].modifyBlocking { $0.save(Self.response(uid: "m\(machine)-\(index)")) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [])
        let reader = TokenCache(settings: CacheSettings(location: .custom(try storage(server))))
        let count = try reader.readBlocking { $0.accounts.values.count }
        XCTAssertEqual(count, machines * writes)
        // Each machine sees all the others' writes at its next read (the version changed).
        for cache in caches {
            XCTAssertEqual(try cache.readBlocking { $0.accounts.values.count }, machines * writes)
        }
    }

    /// Eight machines saving back to back into a large document, each change allowed only one
    /// second of conflicts (five under a sanitizer, where one save of this document takes several
    /// hundred milliseconds): none gives up, because a writer that keeps losing takes a turn.
    func testWritersThatKeepLosingTakeATurnAndNoChangeGivesUp() throws {
        let allowed: TimeInterval = ProcessInfo.processInfo.environment["MSAL_SANITIZER"] == nil ? 1 : 5
        let server = try RedisServer()
        let seed = TokenCache(settings: CacheSettings(location: .custom(try storage(server))))
        try seed.modifyBlocking { store in
            for index in 0..<300 { store.save(Self.response(uid: "seed-\(index)")) }
        }
        let machines = 8
        let caches = try (0..<machines).map { _ in
            var settings = CacheSettings(location: .custom(try storage(server)))
            settings.lockTimeout = allowed
            return TokenCache(settings: settings)
        }
        let failures = Locked<[String]>([])
        let saves = Locked(0)
        let stop = Date().addingTimeInterval(4)
        DispatchQueue.concurrentPerform(iterations: machines) { machine in
            var index = 0
            while Date() < stop {
                index += 1
                do {
                    try caches[machine].modifyBlocking { $0.save(Self.response(uid: "m\(machine)-\(index)")) }
                    saves.withLock { $0 += 1 }
                } catch {
                    failures.withLock { $0.append(MSALErrorInfo(error).errorDescription ?? "\(error)") }
                }
            }
        }
        let failed = failures.withLock { $0 }
        print("contention: \(machines) machines, \(saves.withLock { $0 }) saves, \(failed.count) gave up in 4 s")
        XCTAssertEqual(failed, [])
        XCTAssertEqual(
            try seed.readBlocking { $0.accounts.values.count }, 300 + saves.withLock { $0 },
            "every acknowledged save kept")
    }

    /// A save refused because another machine holds the write turn answers a conflict at once:
    /// the storage is called under the cache's lock, so it must not wait there for the turn (the
    /// library pauses outside it). Its next save asks for the turn and gets it once it is free.
    func testASaveRefusedByAnotherMachinesTurnDoesNotWait() throws {
        let server = try RedisServer()
        let storage = try storage(server)
        guard case .saved(let version) = try storage.save(Data("{}".utf8), replacingVersion: 0, lease: nil) else {
            return XCTFail("the first save")
        }
        // Two stale saves make the storage want the turn; another machine holds it for 5 s.
        for _ in 0..<2 { XCTAssertEqual(try storage.save(Data("{}".utf8), replacingVersion: 1, lease: nil), .conflict) }
        XCTAssertEqual(try admin(server).command("SET", "msal:{fleet}:turn", "other", "PX", "5000"), .status("OK"))
        let start = Date()
        XCTAssertEqual(try storage.save(Data("{}".utf8), replacingVersion: version, lease: nil), .conflict)
        let waited = Date().timeIntervalSince(start)
        XCTAssertLessThan(waited, 0.3, "refused by the turn: answered at once, not after waiting for it")
        // The turn given back, the next save takes it and succeeds.
        XCTAssertEqual(try admin(server).command("DEL", "msal:{fleet}:turn"), .integer(1))
        guard case .saved = try storage.save(Data("{}".utf8), replacingVersion: version, lease: nil) else {
            return XCTFail("the save after the turn was given back")
        }
        XCTAssertEqual(try admin(server).command("EXISTS", "msal:{fleet}:turn"), .integer(0), "given back by the save")
    }

    func testEncryptedDocumentIsSharedByMachinesWithTheKey() throws {
        let server = try RedisServer()
        let key = [UInt8](repeating: 7, count: 32)
        var settings = CacheSettings(location: .custom(try storage(server)))
        settings.encryptionKey = key
        try TokenCache(settings: settings).modifyBlocking {
            $0.save(Self.response(uid: "alice", refreshToken: "secret-rt"))
        }
        guard case .bulk(let stored) = try admin(server).command("HGET", "msal:{fleet}:doc", "d") else {
            return XCTFail("HGET")
        }
        XCTAssertNil(stored.firstRange(of: Array("secret-rt".utf8)), "the refresh token must not be in Redis in clear")
        var other = CacheSettings(location: .custom(try storage(server)))
        other.encryptionKey = key
        XCTAssertEqual(
            try TokenCache(settings: other).readBlocking { $0.refreshTokens.values.first?.secret }, "secret-rt")
    }

    func testReadStalenessServesFromMemoryUntilItPasses() throws {
        let server = try RedisServer()
        let writer = TokenCache(settings: CacheSettings(location: .custom(try storage(server))))
        let lazy = TokenCache(settings: CacheSettings(location: .custom(try storage(server, staleness: 3600))))
        let eager = TokenCache(settings: CacheSettings(location: .custom(try storage(server))))
        XCTAssertEqual(try lazy.readBlocking { $0.accounts.values.count }, 0)
        XCTAssertEqual(try eager.readBlocking { $0.accounts.values.count }, 0)
        try writer.modifyBlocking { $0.save(Self.response(uid: "alice")) }
        XCTAssertEqual(try eager.readBlocking { $0.accounts.values.count }, 1)
        XCTAssertEqual(try lazy.readBlocking { $0.accounts.values.count }, 0, "within readStaleness: from memory")
        // A change made by the lazy machine itself starts from the newest document (compare-and-set).
        try lazy.modifyBlocking { $0.save(Self.response(uid: "bob")) }
        XCTAssertEqual(try lazy.readBlocking { $0.accounts.values.count }, 2)
        XCTAssertEqual(try eager.readBlocking { $0.accounts.values.count }, 2)
    }

    func testRedisDownIsAConnectionFailedMSALError() throws {
        let server = try RedisServer()
        let cache = TokenCache(settings: CacheSettings(location: .custom(try storage(server))))
        try cache.modifyBlocking { $0.save(Self.response(uid: "alice")) }
        server.stop()
        XCTAssertThrowsError(try cache.modifyBlocking { $0.save(Self.response(uid: "bob")) }) { error in
            let info = MSALErrorInfo(error)
            XCTAssertEqual(info.domain, MSALErrorDomain)
            XCTAssertEqual(info.msalError, .internal)
            XCTAssertEqual(info.internalCodeValue, MSALRedisCacheError.connectionFailed.rawValue, "\(error)")
        }
        // Back up (empty: no persistence): the cache works again and its next change is saved. Redis
        // is the truth: what it lost is not written back from a machine's memory (that would bring
        // back accounts removed meanwhile), and the failed change (bob) was not kept either.
        try server.start()
        try cache.modifyBlocking { $0.save(Self.response(uid: "carol")) }
        let reader = TokenCache(settings: CacheSettings(location: .custom(try storage(server))))
        XCTAssertEqual(try reader.readBlocking { $0.accounts.values.map(\.localAccountId) }, ["carol"])
        XCTAssertEqual(try cache.readBlocking { $0.accounts.values.map(\.localAccountId) }, ["carol"])
    }

    func testSilentServerIsATimedOutMSALErrorWithinTheTimeout() throws {
        let peer = try HostilePeer { _ in Thread.sleep(forTimeInterval: 5) }
        var connection = MSALRedisConnectionConfig(host: "127.0.0.1", port: peer.listener.port)
        connection.timeout = 0.3
        let cache = TokenCache(
            settings: CacheSettings(
                location: .custom(try MSALRedisCacheStorage(connection: connection, cacheName: "x"))))
        let start = Date()
        XCTAssertThrowsError(try cache.readBlocking { $0.accounts.values.count }) { error in
            XCTAssertEqual(MSALErrorInfo(error).internalCodeValue, MSALRedisCacheError.timedOut.rawValue, "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 2)
    }

    func testWrongPasswordIsAnAuthenticationFailedErrorWithoutThePassword() throws {
        let server = try RedisServer(user: (name: "fleet", password: "right-password"))
        let cache = TokenCache(
            settings: CacheSettings(
                location: .custom(try storage(server, user: "fleet", password: "wrong-password", name: "x"))))
        XCTAssertThrowsError(try cache.readBlocking { $0.accounts.values.count }) { error in
            XCTAssertEqual(
                MSALErrorInfo(error).internalCodeValue, MSALRedisCacheError.authenticationFailed.rawValue, "\(error)")
            XCTAssertFalse("\(error)".contains("wrong-password"))
        }
        let good = TokenCache(
            settings: CacheSettings(
                location: .custom(try storage(server, user: "fleet", password: "right-password", name: "x"))))
        try good.modifyBlocking { $0.save(Self.response(uid: "alice")) }
    }

    /// The ACL user Docs/RedisCache.md tells operators to create can do everything the storage
    /// does: load, save (the script's own commands included), leases, and write turns, taken and
    /// refused.
    func testTheACLTheGuideDocumentsIsEnough() throws {
        let guide = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Docs/RedisCache.md")
        let text = try String(contentsOf: guide, encoding: .utf8)
        let line = try XCTUnwrap(text.split(separator: "\n").first { $0.contains("ACL SETUSER msal on >PASSWORD") })
        let command = try XCTUnwrap(line.split(separator: "`").first { $0.hasPrefix("ACL SETUSER") })
        let rules = command.split(separator: " ").dropFirst(5).map(String.init)
        XCTAssertTrue(rules.contains("~msal:*"), "\(rules)")
        let server = try RedisServer(user: (name: "msal", password: "pw"), rules: rules)
        let first = try storage(server, user: "msal", password: "pw", name: "acl")
        let second = try storage(server, user: "msal", password: "pw", name: "acl")
        let cache = TokenCache(settings: CacheSettings(location: .custom(first)))
        try cache.modifyBlocking { $0.save(Self.response(uid: "alice")) }
        XCTAssertEqual(
            try TokenCache(settings: CacheSettings(location: .custom(second))).readBlocking {
                $0.accounts.values.count
            }, 1)
        let lease = try XCTUnwrap(try first.acquireRefreshLease(key: "k"))
        XCTAssertNil(try second.acquireRefreshLease(key: "k"))
        try first.releaseRefreshLease(lease)
        // Two conflicts in a row: the first storage takes the turn with its next save and keeps
        // it while that save meets a newer version; the second is refused at once, twice, and
        // takes the next turn once the first's expired (it never saved).
        let version = try first.storedVersion()
        XCTAssertEqual(try first.save(Data("x".utf8), replacingVersion: version + 7, lease: nil), .conflict)
        XCTAssertEqual(try first.save(Data("x".utf8), replacingVersion: version + 7, lease: nil), .conflict)
        XCTAssertEqual(try first.save(Data("x".utf8), replacingVersion: version + 7, lease: nil), .conflict)
        let start = Date()
        XCTAssertEqual(try second.save(Data("y".utf8), replacingVersion: version, lease: nil), .conflict)
        XCTAssertEqual(try second.save(Data("y".utf8), replacingVersion: version, lease: nil), .conflict)
        XCTAssertLessThan(Date().timeIntervalSince(start), 0.3, "refused by the turn at once")
        Thread.sleep(forTimeInterval: 0.6)
        XCTAssertEqual(
            try second.save(Data("y".utf8), replacingVersion: version, lease: nil), .saved(version: version + 1))

        // Without HSET the save script is refused: an ACL problem, said as one.
        let narrow = try RedisServer(user: (name: "msal", password: "pw"), rules: rules.filter { $0 != "+hset" })
        let refused = TokenCache(
            settings: CacheSettings(location: .custom(try storage(narrow, user: "msal", password: "pw", name: "acl"))))
        XCTAssertThrowsError(try refused.modifyBlocking { $0.save(Self.response(uid: "alice")) }) { error in
            XCTAssertEqual(
                MSALErrorInfo(error).internalCodeValue, MSALRedisCacheError.authenticationFailed.rawValue, "\(error)")
        }
    }

    func testTLSStorageWorksAndAnUntrustedServerIsTLSFailed() throws {
        let server = try RedisServer(tls: true)
        var connection = MSALRedisConnectionConfig(host: "127.0.0.1", port: try XCTUnwrap(server.tlsPort))
        connection.tlsCAFile = server.caFile
        let cache = TokenCache(
            settings: CacheSettings(
                location: .custom(try MSALRedisCacheStorage(connection: connection, cacheName: "x"))))
        try cache.modifyBlocking { $0.save(Self.response(uid: "alice")) }
        XCTAssertEqual(try cache.readBlocking { $0.accounts.values.count }, 1)

        let other = try RedisServer(tls: true)
        connection.tlsCAFile = other.caFile
        let untrusting = TokenCache(
            settings: CacheSettings(
                location: .custom(try MSALRedisCacheStorage(connection: connection, cacheName: "x"))))
        XCTAssertThrowsError(try untrusting.readBlocking { $0.accounts.values.count }) { error in
            XCTAssertEqual(MSALErrorInfo(error).internalCodeValue, MSALRedisCacheError.tlsFailed.rawValue, "\(error)")
        }
    }

    func testASaveUnderALostLeaseIsFencedAndKeepsTheNewerResult() throws {
        let server = try RedisServer()
        let storage = try storage(server)
        let cache = TokenCache(settings: CacheSettings(location: .custom(storage)))
        try cache.modifyBlocking { $0.save(Self.response(uid: "alice", refreshToken: "rt-1")) }
        let stale = try XCTUnwrap(try storage.acquireRefreshLease(key: "alice"))
        // The lease expires (removed as Redis would) and another machine refreshes under its own.
        try storage.releaseRefreshLease(stale)
        let other = TokenCache(settings: CacheSettings(location: .custom(try self.storage(server))))
        let newer = try XCTUnwrap(try storage.acquireRefreshLease(key: "alice"))
        try RefreshLeaseScope.$current.withValue(newer) {
            try other.modifyBlocking { $0.save(Self.response(uid: "alice", refreshToken: "rt-3")) }
        }
        // The first holder saves late, under the lease it lost: fenced, the newer token stays.
        let returned = try RefreshLeaseScope.$current.withValue(stale) {
            try cache.modifyBlocking { store -> String in
                store.save(Self.response(uid: "alice", refreshToken: "rt-2"))
                return "result"
            }
        }
        XCTAssertEqual(returned, "result", "the late holder's caller still gets its result")
        XCTAssertEqual(try other.readBlocking { $0.refreshTokens.values.map(\.secret) }, ["rt-3"])
        XCTAssertEqual(try cache.readBlocking { $0.refreshTokens.values.map(\.secret) }, ["rt-3"])
    }

    func testAChangeThatThrowsLeavesNothingBehindInMemory() throws {
        struct Abandoned: Error {}
        let server = try RedisServer()
        let cache = TokenCache(settings: CacheSettings(location: .custom(try storage(server))))
        try cache.modifyBlocking { $0.save(Self.response(uid: "alice")) }
        XCTAssertThrowsError(
            try cache.modifyBlocking { store in
                store.save(Self.response(uid: "bob"))
                throw Abandoned()
            })
        XCTAssertEqual(try cache.readBlocking { $0.accounts.values.map(\.localAccountId) }, ["alice"])
    }
}
