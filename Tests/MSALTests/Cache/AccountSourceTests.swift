import Foundation
import XCTest

@testable import MSAL

/// The Account entity's `account_source` (MSAL for Python's field): written when a save says it,
/// read back, and kept when a later save does not say it.
final class AccountSourceTests: XCTestCase {
    private var folder: URL!

    override func setUp() {
        folder = CacheFixtures.temporaryFolder()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    private func cache(_ path: String) -> TokenCache {
        TokenCache(settings: CacheSettings(location: .file(path: path, isDefault: false), lockTimeout: 2))
    }

    private func record(source: String?) -> TokenResponseRecord {
        var record = TokenResponseRecord(
            clientId: "c1", environment: "login.microsoftonline.com", realm: "utid", homeAccountId: "uid.utid",
            localAccountId: "uid", username: "alice@contoso.com")
        record.accessToken = "at"
        record.scopes = ["User.Read"]
        record.expiresOn = 4_000_000_000
        record.cachedAt = 1_700_000_000
        record.accountSource = source
        return record
    }

    private func accountJSON(_ path: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        let accounts = try XCTUnwrap((object as? [String: Any])?["Account"] as? [String: Any])
        XCTAssertEqual(accounts.count, 1)
        return try XCTUnwrap(accounts.values.first as? [String: Any])
    }

    func testTheSourceIsWrittenAsMSALPythonsFieldAndReadBack() throws {
        let path = folder.appendingPathComponent("cache.json").path
        try cache(path).modifyBlocking { $0.save(record(source: "broker")) }
        XCTAssertEqual(try accountJSON(path)["account_source"] as? String, "broker")
        let read = try cache(path).readBlocking { $0.accountRecords(homeAccountId: "uid.utid") }
        XCTAssertEqual(read.map(\.accountSource), ["broker"])
    }

    func testNoSourceWritesNoField() throws {
        let path = folder.appendingPathComponent("cache.json").path
        try cache(path).modifyBlocking { $0.save(record(source: nil)) }
        XCTAssertNil(try accountJSON(path)["account_source"])
    }
}
