import Foundation
import MSALNative
import MSALRedisCache
import MSALRedisCacheNative
import XCTest

@testable import MSAL

/// Someone who can write to the Redis key of an encrypted cache: a planted plaintext document is
/// neither read nor overwritten, another cache's ciphertext does not open, and moving a plaintext
/// cache to encryption takes the explicit step.
final class AdversarialRedisDocumentTests: XCTestCase {
    private let key: [UInt8] = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }

    private func storage(_ server: RedisServer, name: String = "fleet") throws -> MSALRedisCacheStorage {
        try MSALRedisCacheStorage(
            connection: MSALRedisConnectionConfig(host: "127.0.0.1", port: server.port), cacheName: name)
    }

    private func cache(_ storage: MSALRedisCacheStorage, key: [UInt8]?) -> TokenCache {
        var settings = CacheSettings(location: .custom(storage))
        settings.encryptionKey = key
        return TokenCache(settings: settings)
    }

    private func document(_ server: RedisServer, name: String = "fleet") throws -> [UInt8]? {
        let reply = try RedisConnection(server.endpoint(), tls: nil).command("HGET", "msal:{\(name)}:doc", "d")
        if case .bulk(let bytes) = reply { return bytes }
        return nil
    }

    private func plant(_ server: RedisServer, _ bytes: [UInt8], name: String = "fleet") throws {
        let connection = try RedisConnection(server.endpoint(), tls: nil)
        _ = try connection.command([
            Array("HSET".utf8), Array("msal:{\(name)}:doc".utf8), Array("d".utf8), bytes, Array("v".utf8),
            Array("99".utf8),
        ])
    }

    /// A plaintext document with an account and a valid access token, as an attacker writes it.
    private func plaintextDocument(_ server: RedisServer) throws -> [UInt8] {
        let scratch = try storage(server, name: "attacker-scratch")
        try cache(scratch, key: nil).modifyBlocking {
            $0.save(RedisCacheStorageTests.response(uid: "mallory", accessToken: "planted-at"))
        }
        return try XCTUnwrap(try document(server, name: "attacker-scratch"))
    }

    func testAPlantedPlaintextDocumentIsRefusedAndLeftAsItIs() throws {
        let server = try RedisServer()
        let planted = try plaintextDocument(server)
        try plant(server, planted)

        let victim = cache(try storage(server), key: key)
        XCTAssertThrowsError(try victim.readBlocking { $0.accounts.values.count }) { error in
            let error = error as NSError
            XCTAssertEqual(error.domain, MSALErrorDomain)
            XCTAssertTrue(error.localizedDescription.contains("not encrypted"), error.localizedDescription)
            XCTAssertFalse(error.localizedDescription.contains("planted-at"))
        }
        // A change is refused too, and the planted bytes stay for an operator to find.
        XCTAssertThrowsError(try victim.modifyBlocking { $0.save(RedisCacheStorageTests.response(uid: "alice")) })
        XCTAssertEqual(try document(server), planted)
    }

    func testAnotherCachesCiphertextDoesNotOpenHere() throws {
        let server = try RedisServer()
        try cache(try storage(server, name: "other-fleet"), key: key).modifyBlocking {
            $0.save(RedisCacheStorageTests.response(uid: "mallory", accessToken: "other-fleets-at"))
        }
        let copied = try XCTUnwrap(try document(server, name: "other-fleet"))
        XCTAssertTrue(copied.starts(with: Array("MSALCACHE".utf8) + [0, 2, 1]))
        try plant(server, copied)

        XCTAssertThrowsError(try cache(try storage(server), key: key).readBlocking { $0.accounts.values.count }) {
            error in
            XCTAssertTrue((error as NSError).localizedDescription.contains("could not be decrypted"), "\(error)")
        }
        XCTAssertEqual(try document(server), copied)
        // In its own cache it still opens.
        XCTAssertEqual(
            try cache(try storage(server, name: "other-fleet"), key: key).readBlocking { $0.accounts.values.count }, 1)
    }

    func testMovingAPlaintextCacheToEncryptionIsOneExplicitStep() throws {
        let server = try RedisServer()
        let fleet = try storage(server)
        try cache(fleet, key: nil).modifyBlocking {
            $0.save(RedisCacheStorageTests.response(uid: "alice", refreshToken: "alices-rt"))
        }
        XCTAssertThrowsError(try cache(try storage(server), key: key).readBlocking { $0.accounts.values.count })

        XCTAssertTrue(try fleet.encryptPlaintextDocument(with: Data(key)))
        let stored = try XCTUnwrap(try document(server))
        XCTAssertNil(stored.firstRange(of: Array("alices-rt".utf8)))
        XCTAssertEqual(
            try cache(try storage(server), key: key).readBlocking { $0.refreshTokens.values.first?.secret }, "alices-rt"
        )
        // Once only: an encrypted document is left alone, and so is something that is no cache.
        XCTAssertFalse(try fleet.encryptPlaintextDocument(with: Data(key)))
        try plant(server, Array("#!/bin/sh\nrm -rf ~\n".utf8), name: "scripts")
        XCTAssertThrowsError(try storage(server, name: "scripts").encryptPlaintextDocument(with: Data(key)))
        XCTAssertEqual(try document(server, name: "scripts"), Array("#!/bin/sh\nrm -rf ~\n".utf8))
        XCTAssertThrowsError(try fleet.encryptPlaintextDocument(with: Data(count: 16)))
    }
}
