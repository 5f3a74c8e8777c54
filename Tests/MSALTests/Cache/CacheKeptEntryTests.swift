import Foundation
import XCTest

@testable import MSAL

/// Nothing of anyone's is lost at the document level: entries this library cannot model are kept
/// byte for byte, sections are named once in what it writes, and a byte order mark is no
/// corruption (issue 19, part 1).
final class CacheKeptEntryTests: XCTestCase {
    private func decode(_ text: String) throws -> TokenStore {
        try CacheDocument.read(Array(text.utf8))
    }

    /// The document after a load and a save, with `change` applied to the store between them.
    private func rewrite(_ text: String, _ change: (inout TokenStore) -> Void = { _ in }) throws -> String {
        var store = try decode(text)
        change(&store)
        return String(decoding: CacheDocument.write(store), as: UTF8.self)
    }

    /// How many times `"name":` is a member name at the top level of `text`.
    private func topLevelCount(_ name: String, in text: String) throws -> Int {
        var count = 0
        var depth = 0
        let bytes = Array(text.utf8)
        var position = 0
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                var end = position + 1
                while bytes[end] != UInt8(ascii: "\"") { end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1 }
                let string = String(decoding: bytes[(position + 1)..<end], as: UTF8.self)
                var after = end + 1
                while bytes[after] == 0x20 || bytes[after] == 0x0A { after += 1 }
                if depth == 1, bytes[after] == UInt8(ascii: ":"),
                    case .string(let decoded) = try JSONValue(parsing: "\"\(string)\"")
                {
                    if decoded == name { count += 1 }
                }
                position = end + 1
                continue
            }
            if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") { depth += 1 }
            if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") { depth -= 1 }
            position += 1
        }
        return count
    }

    private let hid = CacheFixtures.homeAccountId
    private let client = CacheFixtures.clientId

    /// A document with one usable access token of ours and the given extra entries.
    private func document(accessTokens extra: String = "", refreshTokens: String = "", more: String = "") -> String {
        """
        {"AccessToken": {
          "\(hid)-login.microsoftonline.com-accesstoken-\(client)-utid-user.read": {"credential_type": "AccessToken",
            "secret": "ours", "home_account_id": "\(hid)", "environment": "login.microsoftonline.com",
            "client_id": "\(client)", "realm": "utid", "target": "User.Read", "cached_at": "1700000000",
            "expires_on": "4000000000"}\(extra)
        },
        "RefreshToken": {\(refreshTokens)}\(more)}
        """
    }

    // MARK: - Entries we do not understand

    /// MSAL for Python's access token for a confidential client: no account.
    private let confidentialAccessToken = """
        "-login.microsoftonline.com-accesstoken-app-utid-https://graph.microsoft.com/.default":  {"credential_type": "AccessToken", "secret": "app-only", "home_account_id": null, "environment": "login.microsoftonline.com", "client_id": "app", "target": "https://graph.microsoft.com/.default", "realm": "utid", "token_type": "Bearer", "cached_at": "1700000000", "expires_on": "4000000000"}
        """

    func testAnAccessTokenWithANullHomeAccountIdIsKeptByteForByte() throws {
        let text = document(accessTokens: ",\n" + confidentialAccessToken)
        let written = try rewrite(text) { store in
            store.save(CacheFixtures.response(uid: "other", accessToken: "another"))
        }
        XCTAssertTrue(written.contains(confidentialAccessToken), written)
        // Kept across a second rewrite too, and never returned by a query.
        let again = try rewrite(written)
        XCTAssertTrue(again.contains(confidentialAccessToken))
        let store = try decode(again)
        XCTAssertFalse(store.accessTokens.values.contains { $0.clientId == "app" })
        XCTAssertNil(
            store.accessToken(
                homeAccountId: "", environments: ["login.microsoftonline.com"], realm: "utid", clientId: "app",
                scopes: ["https://graph.microsoft.com/.default"]))
    }

    func testARefreshTokenWhoseTargetIsAnArrayIsKeptByteForByte() throws {
        let entry = """
            "\(hid)-login.microsoftonline.com-refreshtoken-other-app--": {"credential_type":"RefreshToken","secret":"theirs","home_account_id":"\(hid)","environment":"login.microsoftonline.com","client_id":"other-app","target":["a","b"]}
            """
        let written = try rewrite(document(refreshTokens: entry)) { store in
            store.setSignInState(.signedIn, clientId: self.client, homeAccountId: self.hid)
        }
        XCTAssertTrue(written.contains(entry), written)
        let store = try decode(written)
        XCTAssertNil(
            store.refreshToken(homeAccountId: hid, environments: ["login.microsoftonline.com"], clientId: "other-app"))
    }

    func testEntriesThatAreNotObjectsOrLackAFieldAreKeptByteForByte() throws {
        let notAnObject = #""weird-entry": [1, 2, {"x": "y"}]"#
        let noSecret =
            #""no-secret": {"credential_type": "AccessToken", "home_account_id": "h", "environment": "e", "client_id": "c", "target": "t"}"#
        let accountWithoutEnvironment = #""k": {"home_account_id": "h", "realm": "r"}"#
        let text = document(
            accessTokens: ",\n" + notAnObject + ",\n" + noSecret,
            more: ",\n\"Account\": {" + accountWithoutEnvironment + "},\n\"AppMetadata\": {\"m\": \"text\"}")
        let written = try rewrite(text) { store in
            store.save(CacheFixtures.response(uid: "other", accessToken: "another"))
        }
        for kept in [notAnObject, noSecret, accountWithoutEnvironment, #""m": "text""#] {
            XCTAssertTrue(written.contains(kept), "\(kept) in \(written)")
        }
        XCTAssertNoThrow(try JSONValue(parsing: written))
        let store = try decode(written)
        XCTAssertEqual(store.accessTokens.values.count, 2, "ours, and the new one")
        XCTAssertEqual(store.accounts.values.count, 1, "only the new one")
    }

    func testOurEntryUnderTheSameKeyReplacesAKeptOne() throws {
        // A refresh token of ours with the key of one we could not read (its target an array).
        let key = "\(hid)-login.microsoftonline.com-refreshtoken-\(client)--a"
        let entry = """
            "\(key)": {"credential_type":"RefreshToken","secret":"unreadable","home_account_id":"\(hid)","environment":"login.microsoftonline.com","client_id":"\(client)","target":["a"]}
            """
        var record = CacheFixtures.response(uid: "uid", accessToken: "fresh")
        record.homeAccountId = hid
        record.environment = "login.microsoftonline.com"
        record.clientId = client
        record.refreshToken = "ours-now"
        record.scopes = ["a"]
        let written = try rewrite(document(refreshTokens: entry)) { $0.save(record) }
        XCTAssertFalse(written.contains("unreadable"), written)
        let object = try JSONValue(parsing: written)
        guard case .object(let top) = object, case .object(let refreshTokens)? = top["RefreshToken"] else {
            return XCTFail(written)
        }
        XCTAssertEqual(refreshTokens.count, 1)
        XCTAssertEqual(try topLevelCount("RefreshToken", in: written), 1)
        XCTAssertEqual(written.components(separatedBy: "\"\(key)\"").count - 1, 1, "the key is written once")
    }

    func testAnAccountMetadataRecordThatIsNotAnObjectIsKeptByteForByte() throws {
        let record = #""odd.account": "signed_in""#
        let text =
            #"{"AccountMetadata": {"c": {"client_id": "c", "account_metadata_map": {"#
            + #""h.t": {"client_id": "c", "home_account_id": "h.t", "sign_in_state": "signed_out"}, "# + record
            + "}}}}"
        let written = try rewrite(text) { $0.setSignInState(.signedIn, clientId: "c", homeAccountId: "h.t") }
        XCTAssertTrue(written.contains(record), written)
        XCTAssertNoThrow(try JSONValue(parsing: written))
        let store = try decode(written)
        XCTAssertEqual(store.signInState(clientId: "c", homeAccountId: "h.t"), .signedIn)
        XCTAssertEqual(store.signInState(clientId: "c", homeAccountId: "odd.account"), .unknown)
    }

    /// A record's members this library does not model (MSAL for iOS's `athority_map`, whatever
    /// its values) and a sign-in state it does not know survive a rewrite as they were written.
    func testAccountMetadataRecordsKeepWhatThisLibraryDoesNotModel() throws {
        let odd = #"{"URLMap-": {"a": 1}}"#
        let map = #"{"URLMap-": {"https://a/b": "https://c/b"}}"#
        let text =
            #"{"AccountMetadata": {"c": {"client_id": "c", "account_metadata_map": {"#
            + #""h.t": {"client_id": "c", "home_account_id": "h.t", "sign_in_state": "paused", "x": [1]}, "#
            + #""m.t": {"sign_in_state": "signed_out", "athority_map": "# + map + #"}, "#
            + #""o.t": {"sign_in_state": "signed_in", "athority_map": "# + odd + #"}}, "extra": true}}}"#
        let written = try rewrite(text) { $0.setSignInState(.signedIn, clientId: "c", homeAccountId: "n.t") }
        XCTAssertTrue(written.contains(#""sign_in_state":"paused","x":[1]"#), written)
        XCTAssertTrue(written.contains(#""sign_in_state":"signed_out","athority_map":"# + map), written)
        XCTAssertTrue(written.contains(#""sign_in_state":"signed_in","athority_map":"# + odd), written)
        XCTAssertTrue(written.contains(#""extra":true"#), written)
        let store = try decode(written)
        XCTAssertEqual(store.signInState(clientId: "c", homeAccountId: "h.t"), .unknown)
        XCTAssertEqual(store.signInState(clientId: "c", homeAccountId: "m.t"), .signedOut)
        XCTAssertEqual(store.signInState(clientId: "c", homeAccountId: "n.t"), .signedIn)
        XCTAssertEqual(store.signInState(clientId: "c", homeAccountId: "o.t"), .signedIn)
        XCTAssertEqual(String(decoding: CacheDocument.write(store), as: UTF8.self), written, "stable")
    }

    /// A member that this library models for another entry type (an access token's `family_id`,
    /// an account's `secret`) is this entry's unknown member: kept through every rewrite.
    func testMembersOfAnotherEntryTypeAreKeptWhenTheEntryIsRewritten() throws {
        let text = """
            {"AccessToken": {"k": {"credential_type": "AccessToken", "secret": "s", "home_account_id": "h.t",
              "environment": "e", "client_id": "c", "realm": "t", "target": "User.Read",
              "family_id": "1", "username": "u@example.com", "last_modification_time": 17}},
             "Account": {"a": {"home_account_id": "h.t", "environment": "e", "realm": "t", "username": "u",
              "secret": "not ours", "target": ["x"], "expires_on": {"odd": true}}},
             "AppMetadata": {"m": {"client_id": "c", "environment": "e", "realm": "t", "name": "app"}}}
            """
        let written = try rewrite(text)
        let document = try JSONValue(parsing: written)
        func entry(_ section: String, _ key: String) -> [String: JSONValue] {
            guard case .object(let top) = document, case .object(let entries)? = top[section],
                case .object(let entry)? = entries[key]
            else { return [:] }
            return entry
        }
        let token = entry("AccessToken", "k")
        XCTAssertEqual(token["family_id"], .string("1"), written)
        XCTAssertEqual(token["username"], .string("u@example.com"), written)
        XCTAssertEqual(token["last_modification_time"], .number(JSONValue.Number(17)), written)
        let account = entry("Account", "a")
        XCTAssertEqual(account["secret"], .string("not ours"), written)
        XCTAssertEqual(account["target"], .array([.string("x")]), written)
        XCTAssertEqual(account["expires_on"], .object(["odd": .bool(true)]), written)
        let metadata = entry("AppMetadata", "m")
        XCTAssertEqual(metadata["realm"], .string("t"), written)
        XCTAssertEqual(metadata["name"], .string("app"), written)
        let contents = try decode(written)
        XCTAssertEqual(contents.accessTokens.count, 1, "still an access token of ours")
        XCTAssertEqual(contents.accounts.count, 1, "still an account of ours")
        XCTAssertEqual(contents.appMetadata.count, 1)
    }

    /// A client object of `AccountMetadata` that this library cannot model (its `client_id` is
    /// not a string, or its map is not an object) is kept whole, and no member is written twice.
    func testAnAccountMetadataClientThatIsNotOursIsKeptWithoutDuplicateMembers() throws {
        for client in [
            #""c": {"client_id": 7, "account_metadata_map": {}}"#,
            #""c": {"client_id": "c", "account_metadata_map": [1, 2]}"#,
        ] {
            let text = "{\"AccountMetadata\": {\(client), \"d\": {\"client_id\": \"d\", \"account_metadata_map\": {}}}}"
            let written = try rewrite(text) { $0.setSignInState(.signedIn, clientId: "d", homeAccountId: "h.t") }
            XCTAssertTrue(written.contains(client), written)
            XCTAssertEqual(written.components(separatedBy: #""client_id""#).count - 1, 3, written)
            let store = try decode(written)
            XCTAssertEqual(store.signInState(clientId: "d", homeAccountId: "h.t"), .signedIn)
        }
    }

    // MARK: - Duplicate member names

    func testASectionThatIsNotAnObjectIsWrittenOnce() throws {
        let text = #"{"AccessToken": [], "Account": "text", "AccountMetadata": 7}"#
        let unchanged = try rewrite(text)
        for name in ["AccessToken", "Account", "AccountMetadata"] {
            XCTAssertEqual(try topLevelCount(name, in: unchanged), 1, "\(name) in \(unchanged)")
        }
        XCTAssertTrue(unchanged.contains(#""AccessToken":[]"#), unchanged)
        XCTAssertTrue(unchanged.contains(#""Account":"text""#), unchanged)
        let changed = try rewrite(text) { $0.save(CacheFixtures.response(uid: "u", accessToken: "a")) }
        for name in ["AccessToken", "Account", "AccountMetadata", "RefreshToken", "IdToken", "AppMetadata"] {
            XCTAssertEqual(try topLevelCount(name, in: changed), 1, "\(name) in \(changed)")
        }
        let store = try decode(changed)
        XCTAssertEqual(store.accessTokens.values.count, 1)
        XCTAssertEqual(store.accounts.values.count, 1)
    }

    func testASectionNameWrittenWithAnEscapeIsThatSection() throws {
        let text =
            #"{"App\u004detadata": {"appmetadata-login.microsoftonline.com-c": {"client_id": "c", "environment": "login.microsoftonline.com", "family_id": "1"}}, "\u0041ccessToken": {}}"#
        let contents = try decode(text)
        XCTAssertEqual(contents.appMetadata.count, 1, "read as the AppMetadata section")
        XCTAssertTrue(contents.unknownSections.isEmpty)
        let written = try rewrite(text) { $0.save(CacheFixtures.response(uid: "u", accessToken: "a")) }
        XCTAssertEqual(try topLevelCount("AppMetadata", in: written), 1, written)
        XCTAssertEqual(try topLevelCount("AccessToken", in: written), 1, written)
        let store = try decode(written)
        XCTAssertEqual(store.appMetadata(environments: ["login.microsoftonline.com"], clientId: "c")?.familyId, "1")
    }

    func testAnUnknownSectionNamedTwiceIsWrittenOnceWithItsLastValue() throws {
        let written = try rewrite(#"{"Foreign": 1, "Foreign": 2}"#)
        XCTAssertEqual(try topLevelCount("Foreign", in: written), 1, written)
        XCTAssertTrue(written.contains(#""Foreign":2"#), written)
    }

    // MARK: - Byte order mark

    func testAByteOrderMarkBeforeValidJSONIsRead() throws {
        let contents = try CacheDocument.read([0xEF, 0xBB, 0xBF] + Array(CacheFixtures.pythonDocument.utf8))
        XCTAssertEqual(contents.accessTokens.count, 1)
        let written = CacheDocument.write(contents)
        XCTAssertEqual(
            written.first, UInt8(ascii: "{"), "written without the mark (MSAL Python's json.load rejects one)")
    }

    func testACacheFileWithAByteOrderMarkIsNotQuarantined() throws {
        let folder = CacheFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("cache.json").path
        try Data([0xEF, 0xBB, 0xBF] + Array(CacheFixtures.pythonDocument.utf8)).write(to: URL(fileURLWithPath: path))
        let settings = CacheSettings(location: .file(path: path, isDefault: false), lockTimeout: 2)
        let cache = TokenCache(settings: settings)
        XCTAssertEqual(try cache.readBlocking { $0.accessTokens.values.count }, 1)
        try cache.modifyBlocking { $0.setSignInState(.signedIn, clientId: "c", homeAccountId: "h") }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        XCTAssertFalse(names.contains { $0.contains("corrupt") }, "\(names)")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)).first, UInt8(ascii: "{"))
        XCTAssertEqual(try TokenCache(settings: settings).readBlocking { $0.accessTokens.values.count }, 1)
    }

    /// An entry of another credential type in a section this library models (MSAL.NET keeps its
    /// proof-of-possession tokens as `AccessToken_With_AuthScheme`) is not read as one of ours:
    /// kept as written, never served, and never rewritten as a plain access token.
    func testAnEntryOfAnotherCredentialTypeIsKeptAsItWas() throws {
        let entry =
            #""k":{"credential_type": "AccessToken_With_AuthScheme", "secret": "pop", "#
            + #""home_account_id": "h", "environment": "e", "client_id": "c", "target": "s", "realm": "r", "#
            + #""token_type": "pop", "key_id": "kid"}"#
        let document = "{\"AccessToken\": {\(entry)}}"
        let store = try decode(document)
        XCTAssertEqual(store.counts.accessTokens, 0)
        XCTAssertTrue(
            try rewrite(document) { $0.setSignInState(.signedIn, clientId: "c", homeAccountId: "h") }
                .contains(entry))
    }
}
