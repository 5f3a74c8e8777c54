import Foundation
import MSALCacheFixtures
import MSALTestSupport
import XCTest

@testable import MSAL

final class CacheDocumentTests: XCTestCase {
    private func decode(_ text: String) throws -> CacheContents {
        try CacheDocumentCodec.decode(Array(text.utf8))
    }

    func testPythonDocumentLoadsEveryEntity() throws {
        let contents = try decode(CacheFixtures.pythonDocument)
        XCTAssertEqual(contents.accessTokens.count, 1)
        XCTAssertEqual(contents.refreshTokens.count, 1)
        XCTAssertEqual(contents.idTokens.count, 1)
        XCTAssertEqual(contents.accounts.count, 1)
        XCTAssertEqual(contents.appMetadata.count, 1)
        let token = try XCTUnwrap(contents.accessTokens.first)
        XCTAssertEqual(token.target, "Mail.Read User.Read")
        XCTAssertEqual(token.expiresOn, 1_700_003_600)
        XCTAssertEqual(token.refreshOn, 1_700_001_800)
        XCTAssertNil(token.originalKey, "MSAL Python's key is the key we write")
        XCTAssertEqual(token.unknown.raw, #""key_id":null"#)
        XCTAssertEqual(contents.refreshTokens.first?.familyId, "1")
        XCTAssertNil(contents.refreshTokens.first?.originalKey)
        XCTAssertNil(contents.idTokens.first?.originalKey)
        XCTAssertNil(contents.accounts.first?.originalKey)
        XCTAssertNil(contents.appMetadata.first?.originalKey)
        XCTAssertEqual(contents.accounts.first?.accountSource, "password", "MSAL Python's account_source is read")
        XCTAssertNil(contents.accounts.first?.unknown.members["account_source"])
        XCTAssertEqual(contents.unknownSections.map(\.name), ["ForeignSection"])
    }

    func testRoundTripKeepsMeaningUnknownFieldsAndSections() throws {
        let original = try JSONValue(parsing: CacheFixtures.pythonDocument)
        let written = try CacheDocumentCodec.encode(TokenStore(try decode(CacheFixtures.pythonDocument)).contents)
        let reparsed = try JSONValue(parsing: written)
        XCTAssertEqual(reparsed, original)
    }

    func testForeignKeysAreKeptAndDuplicatesCollapse() throws {
        // MSAL.NET keys family tokens by the family id; MSAL for iOS stores the token twice.
        let hid = CacheFixtures.homeAccountId
        let document = """
            {"RefreshToken": {
              "\(hid)-localhost-refreshtoken-1--": {"credential_type": "RefreshToken", "secret": "old",
                "home_account_id": "\(hid)", "environment": "localhost", "client_id": "\(CacheFixtures.clientId)",
                "family_id": "1", "last_modification_time": "100"},
              "\(hid)-localhost-refreshtoken-\(CacheFixtures.clientId)--": {"credential_type": "RefreshToken",
                "secret": "new", "home_account_id": "\(hid)", "environment": "localhost",
                "client_id": "\(CacheFixtures.clientId)", "last_modification_time": "200"}
            }}
            """
        let store = TokenStore(try decode(document))
        XCTAssertEqual(store.contents.refreshTokens.map(\.secret), ["new"])
        XCTAssertNil(store.contents.refreshTokens.first?.originalKey, "its key is the one MSAL Python builds")
    }

    func testMalformedEntriesAreKeptButAreNoEntities() throws {
        let document = """
            {"AccessToken": {"a": {"secret": "x"}, "b": 5, "c": {"credential_type": "AccessToken", "secret": 12,
              "home_account_id": "h", "environment": "e", "client_id": "c", "target": "t"}},
             "Account": {"k": {"home_account_id": "h", "environment": "e", "realm": "r", "username": "u"}}}
            """
        let contents = try decode(document)
        XCTAssertEqual(contents.accessTokens.count, 0)
        XCTAssertEqual(contents.skipped["AccessToken"], 3)
        XCTAssertEqual(contents.keptEntries[.accessToken]?.map(\.key), ["a", "b", "c"])
        XCTAssertEqual(contents.accounts.count, 1)
    }

    func testNotJSONAndTruncatedAreCorrupt() {
        for text in [
            "not json", "{\"AccessToken\": {", "{\"AccessToken\": {}} trailing", "[1, 2]",
            String(CacheFixtures.pythonDocument.dropLast(40)),
        ] {
            XCTAssertThrowsError(try decode(text), text)
        }
        XCTAssertEqual(try decode("  \n").accessTokens.count, 0, "an empty file is an empty cache")
    }

    func testEscapesAndNonASCIIRoundTrip() throws {
        let document =
            #"{"Account": {"k\"ey": {"home_account_id": "h", "environment": "e", "realm": "r", "username": "J\u00f6rg \"Q\" \\ /", "name": "Zoë"}}}"#
        let contents = try decode(document)
        let account = try XCTUnwrap(contents.accounts.first)
        XCTAssertEqual(account.username, "Jörg \"Q\" \\ /")
        XCTAssertEqual(account.name, "Zoë")
        XCTAssertEqual(account.originalKey, "k\"ey")
        let again = try CacheDocumentCodec.decode(CacheDocumentCodec.encode(contents))
        XCTAssertEqual(again.accounts, contents.accounts)
    }

    func testWindowedReadingMatchesWholeReading() throws {
        let bytes = Array(CacheFixtures.pythonDocument.utf8)
        for windowSize in [1, 7, 64, 333] {
            var reader = CacheDocumentReader()
            var start = 0
            var end = 0
            var pending: [UInt8] = []
            while !reader.isDone {
                end = min(bytes.count, end + windowSize)
                pending += bytes[start..<end]
                start = end
                let isFinal = end == bytes.count
                let consumed = try reader.consume(pending, origin: 0, isFinal: isFinal)
                pending.removeFirst(consumed)
                if isFinal { break }
            }
            XCTAssertEqual(reader.contents.accessTokens.count, 1, "window \(windowSize)")
            XCTAssertEqual(reader.contents.accounts.first?.username, "Alice@Contoso.com")
            XCTAssertEqual(reader.contents.unknownSections.count, 1)
        }
    }

    func testStringEndsAndEscapesAreFoundAtEveryPlaceOfABlock() throws {
        // Strings are scanned eight bytes at a time, then searched for quotes and backslashes: put
        // the closing quote and an escape at every place relative to those steps, with the window
        // ending right after. The escape is an escaped quote, which must not end the string, or an
        // escaped backslash, after which a quote does end it.
        for length in 0..<40 {
            for escapeAt in [nil] + Array(0..<length) {
                for escaped in ["\"", "\\"] {
                    var content = Array(repeating: UInt8(ascii: "a"), count: length)
                    var expected = String(repeating: "a", count: length)
                    if let escapeAt {
                        content[escapeAt] = UInt8(ascii: "\\")
                        content.insert(escaped.utf8.first!, at: escapeAt + 1)
                        expected =
                            String(repeating: "a", count: escapeAt) + escaped
                            + String(repeating: "a", count: length - escapeAt - 1)
                    }
                    let bytes = [UInt8(ascii: "\"")] + content + [UInt8(ascii: "\"")]
                    var cursor = JSONByteCursor(bytes, isFinal: true)
                    let scanned = try cursor.scanString()
                    let text = try cursor.makeString(scanned.start, scanned.end, escaped: scanned.escaped)
                    let end = cursor.index
                    let place = "length \(length), escape \(escaped) at \(String(describing: escapeAt))"
                    XCTAssertEqual(scanned.start, 1, place)
                    XCTAssertEqual(scanned.end, bytes.count - 1, place)
                    XCTAssertEqual(scanned.escaped, escapeAt != nil, place)
                    XCTAssertEqual(text, expected, place)
                    XCTAssertEqual(end, bytes.count, place)
                    // Without its closing quote, the string needs more input.
                    var open = JSONByteCursor(bytes, count: bytes.count - 1, isFinal: false)
                    XCTAssertThrowsError(try open.scanString(), place)
                }
            }
        }
    }

    func testManyEscapesInALongStringAreReadInOnePass() throws {
        // Half a million escaped backslashes around one escaped quote, in a string of 1.5 MB: the
        // closing quote, once found, stays the candidate while the escapes before it are stepped
        // over (searching for it again after each escape would take minutes).
        let half = Array(repeating: Array(#"a\\"#.utf8), count: 250_000).joined()
        let bytes = [UInt8(ascii: "\"")] + half + Array(#"\""#.utf8) + half + [UInt8(ascii: "\"")]
        var cursor = JSONByteCursor(bytes, isFinal: true)
        let scanned = try cursor.scanString()
        let text = try cursor.makeString(scanned.start, scanned.end, escaped: scanned.escaped)
        XCTAssertEqual(scanned.end, bytes.count - 1)
        XCTAssertTrue(scanned.escaped)
        let halfText = String(repeating: #"a\"#, count: 250_000)
        XCTAssertEqual(text, halfText + "\"" + halfText)
    }

    func testAnyIndentationReadsTheSame() throws {
        // Runs of spaces are skipped eight at a time: indent by every width around that, and with
        // tabs and carriage returns, in whole documents and in small windows.
        let original = try CacheDocumentCodec.decode(Array(CacheFixtures.pythonDocument.utf8))
        let lines = CacheFixtures.pythonDocument.split(separator: "\n").map { $0.drop { $0 == " " } }
        for width in [0, 1, 7, 8, 9, 15, 16, 17, 25] {
            for lineEnd in ["\n", "\r\n", "\n\t"] {
                let text = lines.enumerated().map {
                    String(repeating: " ", count: width * ($0.offset % 4)) + $0.element
                }
                .joined(separator: lineEnd)
                let bytes = Array(text.utf8)
                let whole = try CacheDocumentCodec.decode(bytes)
                XCTAssertEqual(whole.accessTokens, original.accessTokens, "width \(width)")
                XCTAssertEqual(whole.accounts, original.accounts, "width \(width)")
                var reader = CacheDocumentReader()
                var consumed = 0
                var end = 0
                while !reader.isDone {
                    end = min(bytes.count, end + 5)
                    consumed += try reader.consume(
                        Array(bytes[consumed..<end]), origin: consumed, isFinal: end == bytes.count)
                }
                XCTAssertEqual(reader.contents.accessTokens, original.accessTokens, "width \(width) in windows")
            }
        }
    }

    func testAControlCharacterInIndentationIsMalformed() throws {
        // Whitespace is skipped eight bytes at a time; any other byte below 0x21 among them stops
        // the skip, and the document is malformed, at every place of a run of indentation.
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
                XCTAssertThrowsError(
                    try CacheDocumentCodec.decode(bytes), "byte \(control) at \(place) of the indentation")
            }
        }
    }

    func testKeysThatDifferFromOursAreKeptAsRead() throws {
        // Our keys lowercase every component. A key with the target as written (upper-case
        // letters), one with a different client, and one with an escape are remembered; the key
        // we would write is not.
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
            let token = try XCTUnwrap(try CacheDocumentCodec.decode(Array(document.utf8)).accessTokens.first)
            XCTAssertEqual(CacheKeys.key(token), ours)
            if key == ours {
                XCTAssertNil(token.originalKey, key)
            } else {
                XCTAssertNotNil(token.originalKey, key)
            }
        }
    }

    func testBenchmarkFixtureLoads() throws {
        let folder = CacheFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("cache.json").path
        try PythonShapedCacheFile.write(path: path, accounts: 3)
        XCTAssertEqual(try TokenCache(filePath: path).readBlocking { $0.contents.accessTokens.count }, 3)
    }
}
