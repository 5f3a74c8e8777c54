import XCTest

@testable import MSAL

/// Whose a file at the cache path is (issue 33, item 1): the pure decisions, as tables.
final class AdversarialCacheFileOwnershipTests: XCTestCase {
    private typealias Ownership = CacheFileOwnership

    /// What a file's first bytes say, before it is parsed.
    func testJudgementOfTheFirstBytes() {
        let rows: [(String, [UInt8], Ownership, UInt)] = [
            ("empty", [], .cache, #line),
            ("white space", Array(" \n\t\r\n".utf8), .cache, #line),
            ("byte order mark only", [0xEF, 0xBB, 0xBF], .cache, #line),
            ("an object", Array("{}".utf8), .cache, #line),
            (
                "an object after white space and a BOM", [0xEF, 0xBB, 0xBF] + Array("\n  {\"x\": 1}".utf8), .cache,
                #line
            ),
            ("encrypted", Array("MSALCACHE".utf8) + [0, 1, 1, 0xFF, 0x00], .cache, #line),
            ("NUL bytes (a crash)", [UInt8](repeating: 0, count: 600), .damagedCache, #line),
            ("a shell script", Array("#!/bin/sh\necho hi\n".utf8), .notACache(found: "text that is not JSON"), #line),
            ("a .bashrc", Array("# ~/.bashrc\nexport A=1\n".utf8), .notACache(found: "text that is not JSON"), #line),
            ("not json", Array("not json at all".utf8), .notACache(found: "text that is not JSON"), #line),
            ("an array", Array("[1, 2]".utf8), .notACache(found: "a JSON array"), #line),
            ("a string", Array("\"text\"".utf8), .notACache(found: "a JSON string"), #line),
            ("a number", Array("42".utf8), .notACache(found: "a number"), #line),
            ("a literal", Array("null".utf8), .notACache(found: "text that is not JSON"), #line),
            (
                "an ELF binary", [0x7F] + Array("ELF".utf8) + [2, 1, 1, 0, 0, 0], .notACache(found: "binary data"),
                #line
            ),
            ("NUL then text", [0, 0] + Array("abc".utf8), .notACache(found: "binary data"), #line),
        ]
        for (name, bytes, expected, line) in rows {
            XCTAssertEqual(Ownership.judge(head: bytes), expected, name, line: line)
        }
    }

    /// A document that starts as an object and fails to parse: ours when cut short or when it
    /// named the cache before the fault; someone else's otherwise.
    func testJudgementOfADocumentThatFailsToParse() {
        func row(_ text: String, fault: Int? = nil, size: Int? = nil) -> Ownership {
            let bytes = Array(text.utf8)
            return Ownership.judgeDamage(head: bytes, faultOffset: fault ?? bytes.count, size: size ?? bytes.count)
        }
        let python = "{\n    \"AccessToken\": {\n        \"k\": {\n            \"secret\": \"x\""
        XCTAssertEqual(row(python), .damagedCache, "MSAL for Python's file cut short (killed in-place writer)")
        XCTAssertEqual(row("{\"Account\": {\"x\": "), .damagedCache, "cut short")
        XCTAssertEqual(row("{\"name\": \"my-app\", \"version\":"), .damagedCache, "cut short, whatever it names")
        XCTAssertEqual(row("{\"a\": 1   \n", fault: 9), .damagedCache, "only white space after the fault")
        XCTAssertEqual(
            row("{\"AccessToken\": {}} trailing", fault: 20), .damagedCache, "names a section before the fault")
        XCTAssertEqual(
            row("{\"x\": {\"credential_type\": \"RefreshToken\", ~}}", fault: 43), .damagedCache, "a cache member")
        XCTAssertEqual(
            row("{\n  // VS Code settings\n  \"editor.fontSize\": 14\n}", fault: 4),
            .notACache(found: "a JSON document that does not parse and names nothing of a token cache"),
            "JSON with comments that names nothing of a cache")
        XCTAssertEqual(
            row("{\"password\": \"hunter2\"} and more", fault: 24),
            .notACache(found: "a JSON document that does not parse and names nothing of a token cache"))
        XCTAssertEqual(
            row("{\"AccessToken\"", fault: 20, size: 100_000), .damagedCache,
            "the name counts when it comes before the fault")
        XCTAssertEqual(
            row("#!/bin/sh\n", fault: 0), .notACache(found: "text that is not JSON"), "the first bytes first")
        XCTAssertEqual(
            row("MSALCACHE\u{0}\u{1}\u{1}garbage", fault: 0), .damagedCache, "our encrypted header, damaged")
    }

    /// Lock and temporary files beside a link's target only in a folder of this user.
    func testLinkTargetFolders() {
        let rows: [(Bool, UInt32?, UInt32, CacheLinkTargetDecision, UInt)] = [
            (false, 0, 1000, .allow, #line),  // no link: the chosen path, as it is
            (false, nil, 1000, .allow, #line),
            (true, 1000, 1000, .allow, #line),  // a dotfile manager's link into the home folder
            (true, 0, 1000, .refuse, #line),  // /tmp, or another folder of root's
            (true, 1001, 1000, .refuse, #line),  // another user's folder
            (true, nil, 1000, .refuse, #line),  // nothing found up to the root
            (true, 0, 0, .allow, #line),  // root's own folder
            (true, 1000, 0, .refuse, #line),  // root writing into a user's folder
        ]
        for (isLink, owner, user, expected, line) in rows {
            XCTAssertEqual(
                CacheLinkTargetDecision.decide(isLink: isLink, folderOwner: owner, user: user), expected, line: line)
        }
    }
}
