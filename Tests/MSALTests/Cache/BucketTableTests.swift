import XCTest

@testable import MSAL

/// The store's bucket table must answer like a dictionary of ids, whatever digests the ids have:
/// equal digests (collisions) are told apart by the ids, and removals keep every other bucket
/// reachable.
final class BucketTableTests: XCTestCase {
    private typealias Bucket = TokenStore.Bucket

    private static func bucket(_ id: String, _ slot: Int32) -> Bucket {
        Bucket(homeAccountId: id, refs: [TokenStore.EntityRef(kind: .account, slot: slot)])
    }

    func testMatchesADictionaryThroughInsertsChangesAndRemovalsWithCollidingDigests() {
        // Digests drawn from a handful of values, so most ids collide with others and runs of
        // occupied slots are long; the table grows from its smallest size on the way.
        var table = BucketTable()
        var model: [String: (digest: UInt64, slot: Int32)] = [:]
        var state: UInt64 = 42
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        for step in 0..<6000 {
            let id = "account-\(next() % 400)"
            let digest = next() % 7 == 0 ? UInt64.max : (UInt64(id.count) &* 0x9E37_79B9) % 5
            let known = model[id]
            switch next() % 3 {
            case 0, 1:
                if let known {
                    let position = table.position(of: id, digest: known.digest)
                    XCTAssertNotNil(position, "step \(step): \(id) is there")
                    if let position { table[position: position].refs.append(.init(kind: .idToken, slot: 1)) }
                    model[id] = (known.digest, known.slot)
                } else {
                    XCTAssertNil(table.position(of: id, digest: digest), "step \(step): \(id) is not there")
                    table.insert(Self.bucket(id, Int32(step)), digest: digest)
                    model[id] = (digest, Int32(step))
                }
            default:
                guard let known, let position = table.position(of: id, digest: known.digest) else {
                    XCTAssertNil(known, "step \(step): \(id) is there")
                    continue
                }
                table.remove(at: position)
                model[id] = nil
            }
        }
        XCTAssertEqual(table.count, model.count)
        XCTAssertGreaterThan(model.count, 50)
        for (id, entry) in model {
            let position = table.position(of: id, digest: entry.digest)
            XCTAssertEqual(position.map { table[position: $0].homeAccountId }, id)
            XCTAssertEqual(position.map { table[position: $0].refs.first?.slot }, entry.slot)
        }
        XCTAssertNil(table.position(of: "account-unknown", digest: 3))
    }

    func testAccountBucketsAddChangeAndRemoveByIdInBothHalves() {
        var buckets = AccountBuckets()
        let ids = (0..<300).map { "\($0)-uid.utid" }
        for (index, id) in ids.enumerated() { buckets[id] = Self.bucket(id, Int32(index)) }
        XCTAssertEqual(buckets.append(.init(kind: .accessToken, slot: 9), toBucketOf: ids[7]), ids[7])
        XCTAssertNil(buckets.append(.init(kind: .accessToken, slot: 9), toBucketOf: "nobody"))
        XCTAssertEqual(buckets[ids[7]]?.refs.count, 2)
        XCTAssertEqual(buckets.removeValue(forKey: ids[8])?.refs.first?.slot, 8)
        XCTAssertNil(buckets.removeValue(forKey: ids[8]))
        buckets[ids[9]] = nil
        for (index, id) in ids.enumerated() where index != 8 && index != 9 {
            XCTAssertEqual(buckets[id]?.refs.first?.slot, Int32(index), id)
        }
        XCTAssertNil(buckets[ids[8]])
        XCTAssertNil(buckets[ids[9]])
        let halves = Set(ids.map { AccountBuckets.shard(of: AccountBuckets.digest(of: $0)) })
        XCTAssertEqual(halves, [0, 1], "both halves are used")
    }

    func testTheReaderFindsTheDigestsOfTheIdsAsTheStoreHoldsThem() throws {
        // Ids with an escape, with bytes that are not UTF-8 (decoded with replacement characters),
        // and plain; an entry that lacks a field is skipped and has no digest.
        let document = #"""
            {"AccessToken": {
              "k1": {"credential_type": "AccessToken", "secret": "s", "home_account_id": "u\u00e9.t", "environment": "e", "client_id": "c", "realm": "t", "target": "a"},
              "k2": {"credential_type": "AccessToken", "secret": "s", "home_account_id": "v~.t", "environment": "e", "client_id": "c", "realm": "t", "target": "a"},
              "k3": {"credential_type": "AccessToken", "secret": "s", "environment": "e", "client_id": "c", "realm": "t", "target": "a"}},
             "RefreshToken": {"r": {"credential_type": "RefreshToken", "secret": "s", "home_account_id": "w.t", "environment": "e", "client_id": "c"}},
             "IdToken": {"i": {"credential_type": "IdToken", "secret": "s", "home_account_id": "u\u00e9.t", "environment": "e", "client_id": "c", "realm": "t"}},
             "Account": {"a": {"home_account_id": "w.t", "environment": "e", "realm": "t", "local_account_id": "w", "username": "w@x", "authority_type": "MSSTS"}}}
            """#
        var bytes = Array(document.utf8)
        // A byte that is not UTF-8 in the second id.
        let marker = try XCTUnwrap(bytes.firstIndex(of: UInt8(ascii: "~")))
        bytes[marker] = 0xFF
        let contents = try CacheDocumentCodec.decode(bytes)
        XCTAssertEqual(contents.accessTokens.count, 2)
        guard contents.accessTokens.count == 2 else { return }
        XCTAssertTrue(contents.accessTokens[1].homeAccountId.contains("\u{FFFD}"))
        let digests = contents.homeAccountDigests
        XCTAssertEqual(digests.accessTokens, contents.accessTokens.map { AccountBuckets.digest(of: $0.homeAccountId) })
        XCTAssertEqual(
            digests.refreshTokens, contents.refreshTokens.map { AccountBuckets.digest(of: $0.homeAccountId) })
        XCTAssertEqual(digests.idTokens, contents.idTokens.map { AccountBuckets.digest(of: $0.homeAccountId) })
        XCTAssertEqual(digests.accounts, contents.accounts.map { AccountBuckets.digest(of: $0.homeAccountId) })
        let store = TokenStore(contents, twoThreadsFrom: 0)
        XCTAssertEqual(store.refs("u\u{E9}.t").count, 2)
        XCTAssertEqual(store.refs("w.t").count, 2)
        XCTAssertEqual(store.contents.homeAccountDigests.accessTokens, [], "not kept once used")
    }

    func testAStoreGivenNoDigestsFindsThemItself() throws {
        var contents = try CacheDocumentCodec.decode(Array(CacheSplitReadTests.documentWithEverySection.utf8))
        let withDigests = TokenStore(contents, twoThreadsFrom: 0)
        contents.homeAccountDigests.refreshTokens.removeLast()
        let without = TokenStore(contents, twoThreadsFrom: 0)
        for account in contents.accessTokens {
            XCTAssertEqual(withDigests.refs(account.homeAccountId), without.refs(account.homeAccountId))
            XCTAssertFalse(without.refs(account.homeAccountId).isEmpty)
        }
    }
}
