import Foundation
import XCTest

@testable import MSAL

/// No object in a cache file we write names a member twice: the store keeps one entry per key
/// (of two, the one every JSON reader would see: the later in the document; ours against an
/// older entry), in memory as in the file (issue 19, part 1).
final class CacheDuplicateKeyTests: XCTestCase {
    private var folder: URL!
    private var path: String { folder.appendingPathComponent("cache.json").path }

    override func setUp() {
        folder = CacheFixtures.temporaryFolder()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    private func cache() -> TokenCache {
        let settings = CacheSettings(location: .file(path: path, isDefault: false), lockTimeout: 2)
        return TokenCache(settings: settings)
    }

    private func fileText() throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
    }

    /// The document after a load and a save.
    private func rewrite(_ text: String) throws -> (String, TokenStore) {
        let store = try CacheDocument.read(Array(text.utf8))
        return (String(decoding: CacheDocument.write(store), as: UTF8.self), store)
    }

    private let hid = "uid.utid"
    private let client = CacheFixtures.clientId

    private func accessToken(
        hid: String? = nil, realm: String = "utid", tokenType: String? = nil, secret: String, cachedAt: Int64 = 1
    ) -> CacheAccessToken {
        CacheAccessToken(
            homeAccountId: hid ?? self.hid, environment: "login.microsoftonline.com", clientId: client, realm: realm,
            target: "User.Read", secret: secret, tokenType: tokenType, cachedAt: cachedAt, expiresOn: 4_000_000_000)
    }

    private var builtKey: String { accessToken(secret: "").key }

    private func entry(_ key: String, realm: String, secret: String) -> String {
        """
        "\(key)": {"credential_type": "AccessToken", "secret": "\(secret)", "home_account_id": "\(hid)",
          "environment": "login.microsoftonline.com", "client_id": "\(client)", "realm": "\(realm)",
          "target": "User.Read", "cached_at": "1700000000", "expires_on": "4000000000"}
        """
    }

    // MARK: - The duplicate-detecting check

    func testTheCheckFindsADuplicateMemberName() throws {
        XCTAssertEqual(
            try DuplicateMemberNames.find(in: #"{"a":{"x":1,"\u0078":[{"y":1,"y":2}]},"b":"x"}"#), ["x", "y"])
        XCTAssertEqual(try DuplicateMemberNames.find(in: #"{"a":{"x":"\"x\"","y":"x"}}"#), [])
    }

    // MARK: - Two entities of ours that make one key

    func testTwoAccessTokensDifferingOnlyInTokenTypeAreWrittenOnce() throws {
        try cache().modifyBlocking { store in
            store.upsert(accessToken(secret: "bearer"))
            store.upsert(accessToken(tokenType: "pop", secret: "pop"))
        }
        XCTAssertEqual(try DuplicateMemberNames.find(in: try fileText()), [])
        let (count, secret) = try cache().readBlocking { ($0.accessTokens.count, $0.accessTokens.values.first?.secret) }
        XCTAssertEqual(count, 1)
        XCTAssertEqual(secret, "pop", "the later one stays")
        XCTAssertTrue(try fileText().contains("\"pop\""))
        XCTAssertFalse(try fileText().contains("\"bearer\""))
    }

    func testHomeAccountIdsDifferingByCaseAreWrittenOnceAndTheStoreAgrees() throws {
        let cache = cache()
        try cache.modifyBlocking { store in
            store.upsert(accessToken(hid: "UID.UTID", secret: "upper"))
            store.upsert(accessToken(hid: "uid.utid", secret: "lower"))
        }
        XCTAssertEqual(try DuplicateMemberNames.find(in: try fileText()), [])
        XCTAssertEqual(try cache.readBlocking { $0.accessTokens.values.map(\.homeAccountId) }, ["uid.utid"])
        XCTAssertEqual(try self.cache().readBlocking { $0.accessTokens.values.map(\.homeAccountId) }, ["uid.utid"])
    }

    // MARK: - Ours against the key an older entry was read under

    func testANewEntityTakesTheKeyAnOlderEntityWasReadUnder() throws {
        // Read under the key our new token builds, though its fields (another realm) say otherwise.
        try Data(("{\"AccessToken\": {\n" + entry(builtKey, realm: "other", secret: "older") + "\n}}").utf8)
            .write(to: URL(fileURLWithPath: path))
        let cache = cache()
        XCTAssertEqual(try cache.readBlocking { $0.accessTokens.values.count }, 1)
        try cache.modifyBlocking { $0.upsert(accessToken(secret: "ours")) }
        let text = try fileText()
        XCTAssertEqual(try DuplicateMemberNames.find(in: text), [])
        XCTAssertTrue(text.contains("\"ours\""), text)
        XCTAssertEqual(try cache.readBlocking { $0.accessTokens.values.map(\.realm) }, ["utid"])
    }

    // MARK: - Input that names a member twice

    func testOfTwoEntriesReadUnderOneKeyTheLaterStays() throws {
        let text =
            "{\"AccessToken\": {\n" + entry("k", realm: "first", secret: "first") + ",\n"
            + entry("k", realm: "second", secret: "second") + "\n}}"
        let (written, store) = try rewrite(text)
        XCTAssertEqual(try DuplicateMemberNames.find(in: written), [])
        XCTAssertEqual(store.accessTokens.values.map(\.realm), ["second"])
        XCTAssertTrue(written.contains("\"second\""), written)
        XCTAssertFalse(written.contains("\"first\""), written)
    }

    func testOfTwoKeptEntriesWithOneKeyTheLaterStays() throws {
        let text = """
            {"RefreshToken": {"k": "first", "k": ["second"]},
             "AccountMetadata": {"c": 1, "c": 2, "d": {"account_metadata_map": {"h": 1, "h": 2}}}}
            """
        let (written, store) = try rewrite(text)
        XCTAssertEqual(try DuplicateMemberNames.find(in: written), [])
        XCTAssertEqual(store.keptEntries[.refreshToken]?.map(\.value), [#""k": ["second"]"#])
        XCTAssertTrue(written.contains(#""c": 2"#), written)
        XCTAssertFalse(written.contains(#""c": 1"#), written)
        XCTAssertTrue(written.contains(#""h": 2"#), written)
        XCTAssertFalse(written.contains(#""h": 1"#), written)
    }

    func testAKeptEntryLaterThanAnEntityOfItsKeyStays() throws {
        let text = "{\"AccessToken\": {\n" + entry("k", realm: "first", secret: "first") + ",\n\"k\": [\"later\"]\n}}"
        let (written, store) = try rewrite(text)
        XCTAssertEqual(try DuplicateMemberNames.find(in: written), [])
        XCTAssertEqual(store.accessTokens.values.count, 0)
        XCTAssertTrue(written.contains(#""k": ["later"]"#), written)
    }

    func testAnEntityLaterThanAKeptEntryOfItsKeyStays() throws {
        let text =
            "{\"AccessToken\": {\n\"k\": [\"earlier\"],\n" + entry("k", realm: "second", secret: "second") + "\n}}"
        let (written, store) = try rewrite(text)
        XCTAssertEqual(try DuplicateMemberNames.find(in: written), [])
        XCTAssertEqual(store.accessTokens.values.map(\.realm), ["second"])
        XCTAssertEqual(store.keptEntries[.accessToken] ?? [:], [:])
    }
}

/// Finds member names that occur twice in one object of a JSON text (decoded, so `"\u0078"` is
/// `"x"`): Foundation's parser takes the last silently.
enum DuplicateMemberNames {
    struct Malformed: Error {}

    static func find(in text: String) throws -> [String] {
        var parser = Parser(bytes: Array(text.utf8))
        try parser.value()
        return parser.duplicates
    }

    private struct Parser {
        let bytes: [UInt8]
        var position = 0
        var duplicates: [String] = []

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        mutating func skipSpace() {
            while position < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[position]) { position += 1 }
        }

        mutating func value() throws {
            skipSpace()
            guard position < bytes.count else { throw Malformed() }
            switch bytes[position] {
            case UInt8(ascii: "{"):
                position += 1
                var names = Set<String>()
                skipSpace()
                if bytes[position] == UInt8(ascii: "}") {
                    position += 1
                    return
                }
                while true {
                    skipSpace()
                    let name = try string()
                    if !names.insert(name).inserted { duplicates.append(name) }
                    skipSpace()
                    guard bytes[position] == UInt8(ascii: ":") else { throw Malformed() }
                    position += 1
                    try value()
                    skipSpace()
                    position += 1
                    if bytes[position - 1] == UInt8(ascii: "}") { return }
                    guard bytes[position - 1] == UInt8(ascii: ",") else { throw Malformed() }
                }
            case UInt8(ascii: "["):
                position += 1
                skipSpace()
                if bytes[position] == UInt8(ascii: "]") {
                    position += 1
                    return
                }
                while true {
                    try value()
                    skipSpace()
                    position += 1
                    if bytes[position - 1] == UInt8(ascii: "]") { return }
                    guard bytes[position - 1] == UInt8(ascii: ",") else { throw Malformed() }
                }
            case UInt8(ascii: "\""):
                _ = try string()
            default:
                while position < bytes.count, !",}] \n\r\t".utf8.contains(bytes[position]) { position += 1 }
            }
        }

        /// A string at the position, decoded by the general parser.
        mutating func string() throws -> String {
            guard bytes[position] == UInt8(ascii: "\"") else { throw Malformed() }
            let start = position
            position += 1
            while bytes[position] != UInt8(ascii: "\"") { position += bytes[position] == UInt8(ascii: "\\") ? 2 : 1 }
            position += 1
            guard
                case .string(let decoded) = try JSONValue(
                    parsing: String(decoding: bytes[start..<position], as: UTF8.self))
            else { throw Malformed() }
            return decoded
        }
    }
}
