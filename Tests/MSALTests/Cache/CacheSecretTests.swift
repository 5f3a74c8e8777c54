import Foundation
import Glibc
import MSALCacheFixtures
import MSALTestSupport
import XCTest

@testable import MSAL

/// Secrets kept as places in the cache file (``EntryOrigin``): read on demand, copied on save,
/// checked against files rewritten in place.
final class CacheSecretTests: XCTestCase {
    private var folder: URL!

    override func setUp() {
        folder = CacheFixtures.temporaryFolder()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    private func fileCache(_ path: String, durable: Bool = false) -> TokenCache {
        var settings = CacheSettings(location: .file(path: path, isDefault: false), lockTimeout: 2)
        settings.durable = durable
        return TokenCache(settings: settings)
    }

    /// Every secret of the document at `path`, by section, as JSON decodes them.
    private func secrets(_ path: String) throws -> [String: Set<String>] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        var result: [String: Set<String>] = [:]
        for section in ["AccessToken", "RefreshToken", "IdToken"] {
            let entries = (object as? [String: Any])?[section] as? [String: [String: Any]] ?? [:]
            result[section] = Set(entries.values.compactMap { $0["secret"] as? String })
        }
        return result
    }

    private func storeSecrets(_ cache: TokenCache) throws -> [String: Set<String>] {
        try cache.readBlocking { store in
            [
                "AccessToken": Set(store.contents.accessTokens.indices.map { store.secret(.accessToken, $0) ?? "" }),
                "RefreshToken": Set(
                    store.contents.refreshTokens.indices.map { store.secret(.refreshToken, $0) ?? "" }),
                "IdToken": Set(store.contents.idTokens.indices.map { store.secret(.idToken, $0) ?? "" }),
            ]
        }
    }

    /// Whether the store keeps every (or, with `any`, some) secret of `kind` as a place in its file.
    private func inFile(_ store: TokenStore, _ kind: TokenStore.Kind, any: Bool = false) -> Bool {
        let count =
            switch kind {
            case .accessToken: store.contents.accessTokens.count
            case .refreshToken: store.contents.refreshTokens.count
            case .idToken: store.contents.idTokens.count
            case .account: 0
            }
        let kept = (0..<count).filter { store.keepsSecretInFile(kind, $0) }.count
        return any ? kept > 0 : kept == count
    }

    func testSecretsAreReadFromTheFileAndSurviveSaves() throws {
        let path = folder.appendingPathComponent("cache.json").path
        try PythonShapedCacheFile.write(path: path, accounts: 5)
        let expected = try secrets(path)
        XCTAssertEqual(expected["AccessToken"]?.count, 5)

        let cache = fileCache(path)
        XCTAssertTrue(try cache.readBlocking { inFile($0, .accessToken) })
        XCTAssertEqual(try storeSecrets(cache), expected)

        // A save copies the secrets it never decoded, and the store then reads them from the new file.
        try cache.modifyBlocking { $0.setSignInState(.signedIn, clientId: "c", homeAccountId: "h") }
        XCTAssertEqual(try secrets(path), expected)
        XCTAssertTrue(try cache.readBlocking { inFile($0, .refreshToken) })
        XCTAssertEqual(try storeSecrets(cache), expected)

        // A new token (in memory until saved) and a second save.
        var record = TokenResponseRecord(
            clientId: "04b07795-8ddb-461a-bbee-02f9e1bf7b46", environment: "login.microsoftonline.com",
            realm: "72f988bf-86f1-41af-91ab-2d7cd011db47", homeAccountId: "new.72f988bf-86f1-41af-91ab-2d7cd011db47",
            localAccountId: "new", username: "new@contoso.com")
        let long = String(repeating: "n", count: 100) + "\"quoted\\/\u{1}"
        record.accessToken = long
        record.scopes = ["User.Read"]
        record.expiresOn = 4_000_000_000
        try cache.modifyBlocking { $0.save(record) }
        try cache.modifyBlocking { $0.setSignInState(.signedOut, clientId: "c", homeAccountId: "h") }
        var all = expected
        all["AccessToken"]?.insert(long)
        XCTAssertEqual(try secrets(path), all)
        XCTAssertEqual(try storeSecrets(cache), all)
        XCTAssertEqual(try storeSecrets(fileCache(path)), all, "a fresh load reads the escaped secret back")

        let found = try cache.readBlocking {
            $0.accessToken(
                homeAccountId: record.homeAccountId, environments: [record.environment], realm: record.realm,
                clientId: record.clientId, scopes: ["user.read"])
        }
        XCTAssertEqual(found?.secret, long, "queries return secrets in memory")
    }

    func testAFileRewrittenInPlaceIsNeverReadAsTheOldTokens() throws {
        let path = folder.appendingPathComponent("cache.json").path
        try PythonShapedCacheFile.write(path: path, accounts: 3)
        let cache = fileCache(path)
        let held = try cache.readBlocking { $0 }
        XCTAssertTrue(held.keepsSecretInFile(.accessToken, 0))
        XCTAssertTrue(held.contents.accessTokens[0].secret.isEmpty, "the entity holds no secret text")

        // Another program truncates the file and writes other tokens in the same places.
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let rewritten = text.replacingOccurrences(of: "A", with: "B")
        let descriptor = open(path, O_WRONLY | O_TRUNC)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        _ = Array(rewritten.utf8).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)

        XCTAssertNil(held.accessTokenSecret(at: 0), "the place no longer holds the token read")
        XCTAssertNil(held.accessToken(at: 0))
        // The cache notices the change and reads the new tokens.
        XCTAssertEqual(try storeSecrets(cache), try secrets(path))
    }

    func testShortAndEncryptedSecretsStayInMemory() throws {
        let path = folder.appendingPathComponent("cache.json").path
        try PythonShapedCacheFile.write(path: path, accounts: 2)
        let expected = try secrets(path)
        var settings = CacheSettings(
            location: .file(path: path, isDefault: false), encryptionKey: Array(repeating: 7, count: 32),
            lockTimeout: 2)
        settings.durable = false
        let cache = TokenCache(settings: settings)
        XCTAssertFalse(try cache.readBlocking { inFile($0, .accessToken, any: true) })
        try cache.modifyBlocking { $0.setSignInState(.signedIn, clientId: "c", homeAccountId: "h") }
        XCTAssertFalse(try cache.readBlocking { inFile($0, .accessToken, any: true) })
        XCTAssertEqual(try storeSecrets(cache), expected)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertNil(bytes.range(of: Data(expected["AccessToken"]!.first!.utf8)), "no plaintext on disk")
    }

    func testTheCheckCoversEveryByteAndTheLength() {
        // A change of any one bit, at any place of the four lanes, the eight-byte words or the
        // last bytes, changes the check; so does a length change with the same bytes.
        for length in 0..<80 {
            var bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let original = CacheFileRange.check(bytes.span)
            for index in 0..<length {
                // The lowest bit, a middle one and the highest: a lane's low bits see only the
                // low bits of its words until the final mix.
                for flip: UInt8 in [0x01, 0x20, 0x80] {
                    bytes[index] ^= flip
                    XCTAssertNotEqual(
                        CacheFileRange.check(bytes.span), original,
                        "\(length) at \(index), bit \(flip)")
                    bytes[index] ^= flip
                }
            }
            XCTAssertEqual(CacheFileRange.check(bytes.span), original)
            if length > 0 {
                XCTAssertNotEqual(CacheFileRange.check(Array(bytes.dropLast()).span), original)
            }
        }
    }
}
