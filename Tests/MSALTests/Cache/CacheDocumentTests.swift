import Foundation
import MSALCacheFixtures
import MSALTestSupport
import XCTest

@testable import MSAL

/// The cache document as MSAL for Python and this library write it: what is read, what is kept
/// as it was, what is refused.
final class CacheDocumentTests: XCTestCase {
    private func read(_ text: String) throws -> TokenStore {
        try CacheDocument.read(Array(text.utf8))
    }

    private func rewrite(_ text: String) throws -> String {
        String(decoding: CacheDocument.write(try read(text)), as: UTF8.self)
    }

    func testPythonDocumentLoadsEveryEntity() throws {
        let store = try read(CacheFixtures.pythonDocument)
        XCTAssertEqual(store.counts.accessTokens, 1)
        XCTAssertEqual(store.counts.refreshTokens, 1)
        XCTAssertEqual(store.counts.idTokens, 1)
        XCTAssertEqual(store.counts.accounts, 1)
        XCTAssertEqual(store.counts.appMetadata, 1)
        let (key, token) = try XCTUnwrap(store.accessTokens.first)
        XCTAssertEqual(key, token.key, "MSAL Python's key is the key we build")
        XCTAssertEqual(token.target, "Mail.Read User.Read")
        XCTAssertEqual(token.expiresOn, 1_700_003_600)
        XCTAssertEqual(token.refreshOn, 1_700_001_800)
        XCTAssertEqual(token.unknown.raw, #""key_id":null"#)
        XCTAssertEqual(store.refreshTokens.values.first?.familyId, "1")
        XCTAssertEqual(store.accounts.values.first?.accountSource, "password", "MSAL Python's account_source is read")
        XCTAssertEqual(store.accounts.values.first?.unknown.raw.contains("account_source"), false)
        XCTAssertEqual(store.unknownSections.map(\.name), ["ForeignSection"])
        XCTAssertEqual(store.unknownSection(named: "ForeignSection"), #"{"x": [1, 2.50, {"y": "\u00e9"}], "n": -0}"#)
    }

    func testRoundTripKeepsMeaningUnknownFieldsAndSections() throws {
        let original = try JSONValue(parsing: CacheFixtures.pythonDocument)
        let written = try rewrite(CacheFixtures.pythonDocument)
        XCTAssertEqual(try JSONValue(parsing: written), original)
        XCTAssertTrue(written.contains(#""ForeignSection":{"x": [1, 2.50, {"y": "\u00e9"}], "n": -0}"#), written)
        XCTAssertEqual(try rewrite(written), written, "writing is stable")
    }

    func testForeignKeysAreKeptAndTwinsCollapse() throws {
        // MSAL.NET keys family tokens by the family id; MSAL for iOS stores the token twice.
        let hid = CacheFixtures.homeAccountId
        let netKey = "\(hid)-localhost-refreshtoken-1--"
        func document(newerUnder key: String) -> String {
            """
            {"RefreshToken": {
              "\(netKey)": {"credential_type": "RefreshToken", "secret": "net",
                "home_account_id": "\(hid)", "environment": "localhost", "client_id": "\(CacheFixtures.clientId)",
                "family_id": "1", "last_modification_time": "\(key == netKey ? 300 : 100)"},
              "\(hid)-localhost-refreshtoken-\(CacheFixtures.clientId)--": {"credential_type": "RefreshToken",
                "secret": "ours", "home_account_id": "\(hid)", "environment": "localhost",
                "client_id": "\(CacheFixtures.clientId)", "last_modification_time": "200"}
            }}
            """
        }
        let ours = try read(document(newerUnder: "ours"))
        XCTAssertEqual(ours.refreshTokens.values.map(\.secret), ["ours"], "the newer stays")
        let net = try read(document(newerUnder: netKey))
        XCTAssertEqual(net.refreshTokens.map(\.key), [netKey], "with the key it was read under")
        XCTAssertEqual(net.refreshTokens.values.map(\.secret), ["net"])
    }

    func testMalformedEntriesAreKeptButAreNoEntities() throws {
        let document = """
            {"AccessToken": {"a": {"secret": "x"}, "b": 5, "c": {"credential_type": "AccessToken", "secret": 12,
              "home_account_id": "h", "environment": "e", "client_id": "c", "target": "t"}},
             "Account": {"k": {"home_account_id": "h", "environment": "e", "realm": "r", "username": "u"}}}
            """
        let store = try read(document)
        XCTAssertEqual(store.counts.accessTokens, 0)
        XCTAssertEqual(store.keptEntries[.accessToken]?.keys.sorted(), ["a", "b", "c"])
        XCTAssertEqual(store.keptEntries[.accessToken]?["b"], #""b": 5"#)
        XCTAssertEqual(store.counts.accounts, 1)
    }

    func testNotJSONAndTruncatedAreCorrupt() {
        for text in [
            "not json", "{\"AccessToken\": {", "{\"AccessToken\": {}} trailing", "[1, 2]", "\"x\"",
            String(CacheFixtures.pythonDocument.dropLast(40)),
        ] {
            XCTAssertThrowsError(try read(text), text)
        }
        XCTAssertThrowsError(try read("{\"AccessToken\": {\"k\": tru")) { error in
            XCTAssertEqual((error as? JSONValue.ParseError)?.offset, 25, "cut short: at the end")
        }
        XCTAssertEqual(try read("  \n").counts.accessTokens, 0, "an empty file is an empty cache")
    }

    func testEscapesAndNonASCIIRoundTrip() throws {
        let document =
            #"{"Account": {"k\"ey": {"home_account_id": "h", "environment": "e", "realm": "r", "username": "J\u00f6rg \"Q\" \\ /", "name": "Zoë"}}}"#
        let store = try read(document)
        let (key, account) = try XCTUnwrap(store.accounts.first)
        XCTAssertEqual(key, "k\"ey", "a key we would not build is kept")
        XCTAssertEqual(account.username, "Jörg \"Q\" \\ /")
        XCTAssertEqual(account.name, "Zoë")
        let again = try CacheDocument.read(CacheDocument.write(store))
        XCTAssertEqual(again.accounts, store.accounts)
    }

    func testStringEndsAndEscapesAreFoundAtEveryPlace() throws {
        // Strings are scanned eight bytes at a time: put the closing quote and an escape at every
        // place relative to those steps. The escape is an escaped quote, which must not end the
        // string, or an escaped backslash, after which a quote does end it.
        for length in 0..<40 {
            for escapeAt in [nil] + Array(0..<length) {
                for escaped in ["\"", "\\"] {
                    var content = String(repeating: "a", count: length)
                    var expected = content
                    if let escapeAt {
                        content =
                            String(repeating: "a", count: escapeAt) + "\\" + escaped
                            + String(repeating: "a", count: length - escapeAt - 1)
                        expected =
                            String(repeating: "a", count: escapeAt) + escaped
                            + String(repeating: "a", count: length - escapeAt - 1)
                    }
                    let place = "length \(length), escape \(escaped) at \(String(describing: escapeAt))"
                    let document = """
                        {"IdToken": {"k": {"secret": "\(content)", "home_account_id": "h", "environment": "e", \
                        "client_id": "c"}}}
                        """
                    XCTAssertEqual(try read(document).idTokens["k"]?.secret, expected, place)
                    XCTAssertThrowsError(try read(#"{"IdToken": {"k": {"secret": ""# + content), place)
                }
            }
        }
    }

    func testManyEscapesInALongStringAreReadInOnePass() throws {
        let half = String(repeating: #"a\\"#, count: 250_000)
        let store = try read(#"{"ForeignSection": {"k": ""# + half + #"\""# + half + #""}}"#)
        let expected = String(repeating: #"a\"#, count: 250_000)
        XCTAssertEqual(
            try JSONValue(parsing: store.unknownSection(named: "ForeignSection") ?? "")["k"],
            .string(expected + "\"" + expected))
    }

    func testAnyIndentationReadsTheSame() throws {
        let original = try read(CacheFixtures.pythonDocument)
        let lines = CacheFixtures.pythonDocument.split(separator: "\n").map { $0.drop { $0 == " " } }
        for width in [0, 1, 7, 8, 9, 15, 16, 17, 25] {
            for lineEnd in ["\n", "\r\n", "\n\t"] {
                let text = lines.enumerated().map {
                    String(repeating: " ", count: width * ($0.offset % 4)) + $0.element
                }
                .joined(separator: lineEnd)
                let store = try read(text)
                XCTAssertEqual(store.accessTokens, original.accessTokens, "width \(width)")
                XCTAssertEqual(store.accounts, original.accounts, "width \(width)")
            }
        }
    }

    func testAControlCharacterInIndentationIsMalformed() throws {
        let lines = CacheFixtures.pythonDocument.split(separator: "\n").map { $0.drop { $0 == " " } }
        for place in 0..<17 {
            for control in [UInt8(0x00), 0x01, 0x0B, 0x0C, 0x1F] {
                var indentation = Array(repeating: UInt8(ascii: " "), count: 16)
                indentation.insert(control, at: place)
                var bytes: [UInt8] = []
                for (index, line) in lines.enumerated() {
                    if index > 0 { bytes += [UInt8(ascii: "\n")] + (index == 2 ? indentation : []) }
                    bytes += Array(line.utf8)
                }
                XCTAssertThrowsError(try CacheDocument.read(bytes), "byte \(control) at \(place) of the indentation")
            }
        }
    }

    func testKeysThatDifferFromOursAreKeptAsRead() throws {
        // Our keys lowercase every component. A key with the target as written (upper-case
        // letters), one with a different client, and one with an escape are kept as read.
        let ours = "u.t-login.example-accesstoken-c-t-mail.read openid"
        let keys = [
            ours, "u.t-login.example-accesstoken-c-t-Mail.Read openid",
            "u.t-login.example-accesstoken-d-t-mail.read openid",
            #"u.t-login.example-accesstoken-c-t-mail.read\u0020openid"#,
        ]
        for key in keys {
            let document = """
                {"AccessToken": {"\(key)": {"credential_type": "AccessToken", "home_account_id": "u.t", \
                "environment": "login.example", "client_id": "c", "realm": "t", "target": "Mail.Read openid", \
                "secret": "s"}}}
                """
            let store = try read(document)
            let (readKey, token) = try XCTUnwrap(store.accessTokens.first)
            XCTAssertEqual(token.key, ours)
            XCTAssertEqual(readKey, try JSONValue(parsing: "\"\(key)\"").stringValue, key)
        }
    }

    /// A document that is not UTF-8 text is no cache document (JSON's encoding; MSAL for Python
    /// cannot read it either): refused with the offset of the first bad byte, so the file is
    /// moved aside whole instead of written back with its bytes changed. Found by the fuzzer: an
    /// account entry kept unread, its bad bytes written back as U+FFFD, read again as an account.
    func testADocumentThatIsNotUTF8IsRefusedAtItsFirstBadByte() throws {
        var bytes = Array(#"{"IdToken": {"k": {"secret": "x"#.utf8) + [0xFF]
        bytes += Array(#"", "home_account_id": "h", "environment": "e", "client_id": "c"}}, "F": "\ud800"}"#.utf8)
        XCTAssertThrowsError(try CacheDocument.read(bytes)) { error in
            XCTAssertEqual((error as? JSONValue.ParseError)?.offset, 31)
            XCTAssertEqual((error as? JSONValue.ParseError)?.reason, "not UTF-8 text")
        }
        for bad: [UInt8] in [[0xC3], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xC0, 0xAF]] {
            let document = Array(#"{"F": "é"#.utf8) + bad + Array(#""}"#.utf8)
            XCTAssertEqual(JSONReader.firstInvalidUTF8(document[...]), 9, "\(bad)")
        }
        XCTAssertNil(JSONReader.firstInvalidUTF8(Array(#"{"F": "é€𝄞\ud800"}"#.utf8)[...]))
        // Wherever a bad byte is (a key, a member's name, a value modeled or kept, a section's
        // name), the document is refused: never read with the byte replaced.
        let valid = Array(CacheFixtures.pythonDocument.utf8)
        XCTAssertNoThrow(try CacheDocument.read(valid))
        for index in valid.indices where valid[index] >= UInt8(ascii: "a") && valid[index] <= UInt8(ascii: "z") {
            var damaged = valid
            damaged[index] = 0xFF
            XCTAssertThrowsError(try CacheDocument.read(damaged), "a bad byte at \(index) was accepted")
        }
        // An unpaired surrogate written as an escape is text: kept as written.
        let store = try CacheDocument.read(Array(#"{"F": "\ud800"}"#.utf8))
        XCTAssertEqual(store.unknownSection(named: "F"), #""\ud800""#)
    }

    func testBenchmarkFixtureLoads() throws {
        let folder = CacheFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("cache.json").path
        try PythonShapedCacheFile.write(path: path, accounts: 3)
        XCTAssertEqual(try TokenCache(filePath: path).readBlocking { $0.counts.accessTokens }, 3)
    }
}
