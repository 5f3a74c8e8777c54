import Foundation
import Glibc
import MSALCacheFixtures
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// Saves copy every entity unchanged since it was read (``CacheEntrySource``) from the file it
/// was read from, checked, and write changed ones from their fields.
final class CacheEntryCopyTests: XCTestCase {
    private var folder: URL!

    override func setUp() {
        folder = CacheFixtures.temporaryFolder()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Reads `path` as the cache file does (its secrets and entries stay places in it).
    private func load(_ path: String) throws -> TokenStore {
        let cache = TokenCache(settings: CacheSettings(location: .file(path: path, isDefault: false), lockTimeout: 2))
        return try cache.readBlocking { $0 }
    }

    /// Writes `store` to `path` as ``CacheFile/save(_:)`` does and places the store in the new file.
    @discardableResult
    private func save(_ store: inout TokenStore, to path: String) throws -> CacheDocumentWriter.Placements {
        let file = CacheFile(path: path, ownsFolder: false, encryptionKey: nil, durable: false)
        let saved = try file.save(store.contents)
        let (snapshot, placements) = try XCTUnwrap(saved.placed)
        store.place(in: snapshot, placements)
        return placements
    }

    private func json(_ path: String) throws -> NSDictionary {
        try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? NSDictionary)
    }

    private func record(_ index: Int, secret: String) -> TokenResponseRecord {
        var record = TokenResponseRecord(
            clientId: "c1", environment: "login.microsoftonline.com", realm: "tenant",
            homeAccountId: "uid\(index).utid", localAccountId: "uid\(index)", username: "user\(index)@contoso.com")
        record.accessToken = secret + "-at"
        record.refreshToken = secret + "-rt"
        record.idToken = secret + "-id"
        record.scopes = ["User.Read"]
        record.expiresOn = 4_000_000_000
        record.cachedAt = 1_700_000_000
        return record
    }

    func testUnchangedEntriesAreCopiedAsWrittenByAnotherLibrary() throws {
        let path = folder.appendingPathComponent("cache.json").path
        try PythonShapedCacheFile.write(path: path, accounts: 6)
        let original = try String(contentsOfFile: path, encoding: .utf8)
        var store = try load(path)
        let entities = store.entityCount - store.contents.accountMetadata.count

        let placements = try save(&store, to: path)
        XCTAssertEqual(placements.copied, entities, "every entry is copied")
        let saved = try String(contentsOfFile: path, encoding: .utf8)
        // MSAL Python's indentation stays inside each entry.
        let firstEntry = try XCTUnwrap(original.range(of: #""AccessToken": {"#)).upperBound
        let entryText = original[firstEntry...].split(separator: "}", maxSplits: 1)[0].drop { $0 == " " || $0 == "\n" }
        XCTAssertTrue(entryText.hasPrefix("\"") && entryText.contains("\n            \"secret\": \""))
        XCTAssertTrue(saved.contains(entryText), "an entry is copied byte for byte")
        XCTAssertEqual(try json(path), try JSONSerialization.jsonObject(with: Data(original.utf8)) as? NSDictionary)

        // The store now copies from the new file, and a fresh load reads what it held.
        XCTAssertEqual(try save(&store, to: path).copied, entities)
        XCTAssertEqual(try load(path).contents.accessTokens.map(\.secret), store.contents.accessTokens.map(\.secret))
        XCTAssertEqual(try json(path), try JSONSerialization.jsonObject(with: Data(original.utf8)) as? NSDictionary)
    }

    func testEveryKindOfChangeIsWrittenFromTheFields() throws {
        let path = folder.appendingPathComponent("cache.json").path
        var store = TokenStore()
        for index in 0..<4 { store.save(record(index, secret: String(repeating: "s\(index)", count: 40))) }
        store.upsert(
            CacheAppMetadata(clientId: "c2", environment: "login.microsoftonline.com", familyId: "1"),
            keepUnknown: false)
        try save(&store, to: path)
        let entities = store.entityCount - store.contents.accountMetadata.count
        XCTAssertEqual(try save(&store, to: path).copied, entities, "entries written once are copied next time")

        // A change of any field of any kind of entity forgets its place.
        // A replacement through the store (its own write operation) forgets the entity's place.
        func change<Entity: StoredEntity>(_ entity: Entity?, at index: Int, _ body: (inout Entity) -> Void) throws {
            var entity = try XCTUnwrap(entity)
            body(&entity)
            store.replace(at: index, with: entity)
        }
        try change(store.accessToken(at: 0), at: 0) { $0.expiresOn = 4_000_000_100 }
        try change(store.accessToken(at: 1), at: 1) { $0.target = "user.read mail.read" }
        try change(store.refreshToken(at: 0), at: 0) { $0.familyId = "1" }
        try change(store.refreshToken(at: 1), at: 1) {
            $0.secret = "rotated-refresh-token-" + String(repeating: "r", count: 40)
        }
        try change(store.idToken(at: 0), at: 0) { $0.unknown = UnknownFields(raw: #""extra":true"#) }
        try change(store.contents.accounts[0], at: 0) { $0.name = "Renamed" }
        try change(store.contents.accounts[1], at: 1) { $0.originalKey = "kept-key" }
        var changedMetadata = store.contents.appMetadata[0]
        changedMetadata.familyId = ""
        store.replace(appMetadataAt: 0, with: changedMetadata)
        let placements = try save(&store, to: path)
        XCTAssertEqual(placements.copied, entities - 8)
        let document = try json(path)
        let accessTokens = try XCTUnwrap(document["AccessToken"] as? [String: [String: Any]])
        XCTAssertEqual(
            Set(accessTokens.values.compactMap { $0["expires_on"] as? String }), ["4000000100", "4000000000"])
        XCTAssertTrue(accessTokens.values.contains { $0["target"] as? String == "user.read mail.read" })
        let refreshTokens = try XCTUnwrap(document["RefreshToken"] as? [String: [String: Any]])
        XCTAssertTrue(refreshTokens.values.contains { ($0["secret"] as? String)?.hasPrefix("rotated") == true })
        XCTAssertTrue(refreshTokens.values.contains { $0["family_id"] as? String == "1" })
        let idTokens = try XCTUnwrap(document["IdToken"] as? [String: [String: Any]])
        XCTAssertTrue(idTokens.values.contains { $0["extra"] as? Bool == true })
        let accounts = try XCTUnwrap(document["Account"] as? [String: [String: Any]])
        XCTAssertTrue(accounts.values.contains { $0["name"] as? String == "Renamed" })
        XCTAssertNotNil(accounts["kept-key"])
        let metadata = try XCTUnwrap(document["AppMetadata"] as? [String: [String: Any]])
        XCTAssertTrue(
            metadata.values.contains { $0["client_id"] as? String == "c1" && $0["family_id"] as? String == "" })

        // What was written is read back as the store holds it, and copied from then on.
        let reloaded = TokenStore(try load(path).contents)
        XCTAssertEqual(
            reloaded.contents.accessTokens.indices.map { reloaded.accessToken(at: $0) },
            store.contents.accessTokens.indices.map { store.accessToken(at: $0) })
        XCTAssertEqual(
            reloaded.contents.refreshTokens.indices.map { reloaded.refreshToken(at: $0) },
            store.contents.refreshTokens.indices.map { store.refreshToken(at: $0) })
        XCTAssertEqual(
            reloaded.contents.idTokens.indices.map { reloaded.idToken(at: $0) },
            store.contents.idTokens.indices.map { store.idToken(at: $0) })
        XCTAssertEqual(reloaded.contents.accounts, store.contents.accounts)
        XCTAssertEqual(reloaded.contents.appMetadata, store.contents.appMetadata)
        XCTAssertEqual(try save(&store, to: path).copied, entities)
    }

    func testAReplacementUnderAnotherHomeAccountMovesToItsBucket() throws {
        let path = folder.appendingPathComponent("cache.json").path
        var store = TokenStore()
        store.save(record(0, secret: String(repeating: "x", count: 64)))
        try save(&store, to: path)
        XCTAssertNotNil(store.contents.origins.accessTokens[0].entry)
        var token = try XCTUnwrap(store.accessToken(at: 0))
        let before = token.homeAccountId
        let secret = token.secret
        token.homeAccountId = "uid9.utid"
        store.replace(at: 0, with: token)
        XCTAssertNil(store.contents.origins.accessTokens[0].entry, "the store's write forgets the place")
        XCTAssertFalse(store.refs(before).contains { $0.kind == .accessToken })
        XCTAssertEqual(store.refs("uid9.utid"), [TokenStore.EntityRef(kind: .accessToken, slot: 0)])
        XCTAssertEqual(store.accessToken(at: 0)?.secret, secret)
    }

    func testAnEntryChangedInTheFileIsWrittenFromTheStore() throws {
        let path = folder.appendingPathComponent("cache.json").path
        var store = TokenStore()
        for index in 0..<3 { store.save(record(index, secret: String(repeating: "t\(index)", count: 40))) }
        try save(&store, to: path)
        let entities = store.entityCount - store.contents.accountMetadata.count

        // Another program rewrites the file in place, changing an account's name to one of the
        // same length (every offset stays the same) and leaving every secret as it was.
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(text.contains("user1@contoso.com"))
        let descriptor = open(path, O_WRONLY)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        let changed = Array(text.replacingOccurrences(of: "user1@contoso.com", with: "evil1@contoso.com").utf8)
        XCTAssertEqual(changed.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }, changed.count)
        close(descriptor)

        // The store's own view is saved: the changed entries are written from their fields, and
        // the entries the other program did not touch are copied.
        let other = folder.appendingPathComponent("other.json").path
        let placements = try save(&store, to: other)
        XCTAssertLessThan(placements.copied, entities)
        XCTAssertGreaterThan(placements.copied, 0)
        let saved = try String(contentsOfFile: other, encoding: .utf8)
        XCTAssertFalse(saved.contains("evil1"))
        XCTAssertTrue(saved.contains("user1@contoso.com"))
        XCTAssertEqual(try load(other).contents.accounts, store.contents.accounts)
    }

    func testASecretChangedInTheFileFailsTheSave() throws {
        for twoWriters in [false] {
            let path = folder.appendingPathComponent("cache-\(twoWriters).json").path
            var store = TokenStore()
            for index in 0..<12 { store.save(record(index, secret: String(repeating: "k\(index)", count: 40))) }
            try save(&store, to: path)
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let descriptor = open(path, O_WRONLY)
            // A secret of the second half (the tokens of account 7) changes, same length.
            let changed = Array(text.replacingOccurrences(of: "k7k7-rt", with: "k7kX-rt").utf8)
            XCTAssertNotEqual(changed, Array(text.utf8))
            XCTAssertEqual(changed.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }, changed.count)
            close(descriptor)
            // The secret exists nowhere else: the save fails rather than write a token it never had.
            let other = folder.appendingPathComponent("other-\(twoWriters).json").path
            XCTAssertThrowsError(try save(&store, to: other)) { error in
                guard case CacheStorageError.changedUnderneath = error else {
                    return XCTFail("unexpected \(error)")
                }
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: other), "nothing replaced the file")
        }
    }

    func testEntriesWrittenAcrossTheOutputsChunksAreCopiedNextTime() throws {
        // Entries larger than a chunk, and entries that straddle one: their bytes cannot be checked
        // while written, so they are written from their fields again (and then copied).
        let output = ByteOutput(chunkSize: 4096) { _, _ in }
        var store = TokenStore()
        for index in 0..<20 { store.save(record(index, secret: String(repeating: "b", count: 300 * index))) }
        let placements = CacheDocumentWriter.write(store.contents, to: output, copier: CacheSecretCopier())
        try output.finish()
        let all = placements.accessTokens + placements.refreshTokens + placements.idTokens + placements.accounts
        XCTAssertTrue(all.contains { $0.entry == nil })
        XCTAssertTrue(all.contains { $0.entry != nil })
    }

    /// Loads `count` accounts' worth of tokens (secrets of `secretLength`) saved once by this
    /// library (so the entries of each section follow each other in the file).
    private func savedStore(_ count: Int, secretLength: Int, at path: String) throws -> TokenStore {
        var store = TokenStore()
        for index in 0..<count {
            store.save(record(index, secret: String(repeating: "w\(index % 10)", count: secretLength / 2)))
        }
        try save(&store, to: path)
        return try load(path)
    }

    func testRunsOfEntriesAcrossManyWindowsAreCopiedByteForByteAndPlaced() throws {
        let path = folder.appendingPathComponent("cache.json").path
        var store = try savedStore(60, secretLength: 700, at: path)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let entities = store.entityCount - store.contents.accountMetadata.count
        XCTAssertGreaterThan(original.count, 16 * 4096, "the runs span many windows")

        // A window of 4 KiB (a few entries each) and output chunks of 4 KiB, into a real file.
        let other = folder.appendingPathComponent("other.json").path
        let file = try NativeFile.createNew(other, mode: 0o600)
        let output = ByteOutput(chunkSize: 4096) { chunk, offset in try file.write(chunk, at: offset) }
        let copier = CacheSecretCopier(windowSize: 4096)
        let placements = CacheDocumentWriter.write(store.contents, to: output, copier: copier)
        try output.finish()
        XCTAssertFalse(copier.failed)
        XCTAssertEqual(placements.copied, entities, "every entry is copied")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: other)), original, "byte for byte")

        // Every entry and secret is where the placements say: the store reads them from the new
        // file and copies every entry from there again.
        let secrets = store.contents.accessTokens.indices.map { store.accessToken(at: $0)?.secret }
        store.place(in: CacheFileSnapshot(file: file), placements)
        XCTAssertEqual(store.contents.accessTokens.indices.map { store.accessToken(at: $0)?.secret }, secrets)
        XCTAssertEqual(try save(&store, to: path).copied, entities)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), original)
    }

    func testASeparatorChangedInTheFileBreaksTheRunNotTheDocument() throws {
        let path = folder.appendingPathComponent("cache.json").path
        var store = try savedStore(8, secretLength: 80, at: path)
        let entities = store.entityCount - store.contents.accountMetadata.count
        // Another program rewrites the file in place with the same entries at the same offsets,
        // but `\n,` between two of them instead of `,\n` (still the same JSON).
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let separator = try XCTUnwrap(text.range(of: "},\n\"uid3"))
        let changed = text.replacingCharacters(in: separator, with: "}\n,\"uid3")
        XCTAssertEqual(changed.utf8.count, text.utf8.count)
        let descriptor = open(path, O_WRONLY)
        XCTAssertEqual(
            Array(changed.utf8).withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }, changed.utf8.count)
        close(descriptor)

        let other = folder.appendingPathComponent("other.json").path
        XCTAssertEqual(try save(&store, to: other).copied, entities, "the entries on both sides are still copied")
        let saved = try String(contentsOfFile: other, encoding: .utf8)
        XCTAssertFalse(saved.contains("}\n,"), "the separator is this library's own")
        XCTAssertEqual(saved, text)
    }

    func testAnEntryChangedInsideARunIsWrittenFromItsFieldsAndTheRestCopied() throws {
        let path = folder.appendingPathComponent("cache.json").path
        var store = try savedStore(10, secretLength: 80, at: path)
        let entities = store.entityCount - store.contents.accountMetadata.count
        let text = try String(contentsOfFile: path, encoding: .utf8)
        // The id token and the account of account 4 (in the middle of their sections) change in
        // place, same length.
        let descriptor = open(path, O_WRONLY)
        let changed = text.replacingOccurrences(
            of: #""uid4.utid","environment":"login.microsoftonline.com","realm""#,
            with: #""uid4.utid","environment":"login.microsoftonline.org","realm""#)
        XCTAssertNotEqual(changed, text)
        XCTAssertEqual(
            Array(changed.utf8).withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }, changed.utf8.count)
        close(descriptor)

        let other = folder.appendingPathComponent("other.json").path
        XCTAssertEqual(try save(&store, to: other).copied, entities - 2)
        XCTAssertEqual(try String(contentsOfFile: other, encoding: .utf8), text, "the store's view, as it wrote it")
    }

    func testALargeFileSavedShorterEndsWhereItsDocumentEnds() throws {
        // Above ``CacheFile/reserveFromBytes`` the new file is allocated at the old one's size first.
        let path = folder.appendingPathComponent("cache.json").path
        var store = try savedStore(400, secretLength: 1500, at: path)
        let before = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        XCTAssertGreaterThan(before, CacheFile.reserveFromBytes)
        for index in 0..<300 {
            store.wipeAccount(homeAccountId: "uid\(index).utid", clientId: "c1", environments: nil)
        }
        try save(&store, to: path)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertLessThan(bytes.count, before / 2)
        XCTAssertEqual(bytes.last, UInt8(ascii: "\n"), "no bytes after the document")
        XCTAssertNoThrow(try JSONSerialization.jsonObject(with: bytes))
        let reloaded = try load(path)
        XCTAssertEqual(reloaded.contents.accounts, store.contents.accounts)
        XCTAssertEqual(reloaded.contents.accessTokens.count, 100)
        // And one that grows past the old size.
        for index in 400..<700 {
            store.save(record(index, secret: String(repeating: "g", count: 1500)))
        }
        try save(&store, to: path)
        XCTAssertEqual(try load(path).contents.accessTokens.count, 400)
        XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))))
    }
}
