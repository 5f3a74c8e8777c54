import Foundation
import XCTest

@testable import MSAL

final class JSONValueTests: XCTestCase {
    func testParsesEveryKind() throws {
        let value = try JSONValue(
            parsing: #" { "s": "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00", "t": true, "f": false, "n": null, "#
                + #""i": 1, "d": 1.5, "a": [1, "2", [], {}], "o": {"k": -2} } "#)
        XCTAssertEqual(value["s"]?.stringValue, "x\"\\/\u{08}\u{0C}\n\r\t\u{e9}\u{1F600}")
        XCTAssertEqual(value["t"], .bool(true))
        XCTAssertEqual(value["f"]?.boolValue, false)
        XCTAssertEqual(value["n"]?.isNull, true)
        XCTAssertEqual(value["i"]?.intValue, 1)
        XCTAssertEqual(value["d"]?.doubleValue, 1.5)
        XCTAssertEqual(value["a"]?[1]?.stringValue, "2")
        XCTAssertEqual(value["a"]?[2], .array([]))
        XCTAssertEqual(value["a"]?[3], .object([:]))
        XCTAssertNil(value["a"]?[4])
        XCTAssertEqual(value["o"]?["k"]?.int64Value, -2)
        XCTAssertNil(value["missing"])
        XCTAssertNil(value["s"]?["k"], "subscript on a non-object")
    }

    func testBooleansAreNeverNumbers() throws {
        let value = try JSONValue(parsing: "[true, 1, false, 0]")
        XCTAssertEqual(value, [true, 1, false, 0])
        XCTAssertEqual(value[0]?.boolValue, true)
        XCTAssertNil(value[0]?.intValue)
        XCTAssertNil(value[1]?.boolValue)
        XCTAssertEqual(value[1]?.intValue, 1)
        XCTAssertEqual(value.serializedString(), "[true,1,false,0]")
    }

    func testNumbersRoundTripExactly() throws {
        let literals = [
            "0", "-0", "1", "1.5", "-0.0", "1.50", "1e3", "1E+3", "2.5e-7", "9223372036854775807",
            "-9223372036854775808", "18446744073709551616", "123456789012345678901234567890", "1e400",
            "0.1000000000000000055511151231257827",
        ]
        for literal in literals {
            let value = try JSONValue(parsing: literal)
            XCTAssertEqual(value.numberValue?.literal, literal)
            XCTAssertEqual(value.serializedString(), literal)
            XCTAssertEqual(try JSONValue(parsing: "{\"v\":\(literal)}").serializedString(), "{\"v\":\(literal)}")
        }
        XCTAssertEqual(try JSONValue(parsing: "9223372036854775807").int64Value, Int64.max)
        XCTAssertNil(try JSONValue(parsing: "9223372036854775808").int64Value)
        XCTAssertEqual(try JSONValue(parsing: "-0").int64Value, 0)
        XCTAssertEqual(try JSONValue(parsing: "1e3").int64Value, 1000)
        XCTAssertEqual(try JSONValue(parsing: "2.0").intValue, 2)
        XCTAssertNil(try JSONValue(parsing: "1.5").intValue)
        XCTAssertEqual(try JSONValue(parsing: "1e400").doubleValue, .infinity)
        XCTAssertNotEqual(try JSONValue(parsing: "1"), try JSONValue(parsing: "1.0"), "numbers compare by literal")
    }

    func testNumberInitializers() {
        XCTAssertEqual(JSONValue.Number(3599).literal, "3599")
        XCTAssertEqual(JSONValue.Number(Int64.min).literal, "-9223372036854775808")
        XCTAssertEqual(JSONValue.Number(1.5)?.literal, "1.5")
        XCTAssertNil(JSONValue.Number(Double.nan))
        XCTAssertNil(JSONValue.Number(Double.infinity))
        XCTAssertEqual(JSONValue.Number(literal: "-1.5e+10")?.literal, "-1.5e+10")
        for invalid in ["", "-", "01", "1.", ".5", "1e", "+1", "0x10", "1 ", "NaN", "Infinity", "1.5.5"] {
            XCTAssertNil(JSONValue.Number(literal: invalid), invalid)
        }
        let value: JSONValue = 2.5e-7
        XCTAssertEqual(try JSONValue(parsing: value.serializedString()).doubleValue, 2.5e-7)
    }

    func testRejectsInvalidJSON() {
        let invalid = [
            "", " ", "{", "}", "[", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "{'a':1}", "[1 2]", "tru", "nul",
            "True", "01", "1.", "-", "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\u12G4\"", "\"\\ud800\"", "\"\\udc00\"",
            "\"\\ud800\\u0041\"", "\"a\u{01}b\"", "\"\n\"", "[1] [2]", "1 2", "// c\n1", "/* c */ 1", "NaN",
            "{\"a\":1}}", "\u{FEFF}\u{FEFF}1",
        ]
        for text in invalid {
            XCTAssertThrowsError(try JSONValue(parsing: text), text.debugDescription)
        }
        XCTAssertThrowsError(try JSONValue(parsing: Data([0x22, 0xFF, 0x22])), "invalid UTF-8 in a string")
        XCTAssertThrowsError(try JSONValue(parsing: Data([0x22, 0xC3, 0x22])), "truncated UTF-8 sequence")
        XCTAssertThrowsError(try JSONValue(parsing: Data([0x22, 0xED, 0xA0, 0x80, 0x22])), "encoded surrogate")
    }

    func testErrorsSayWhereButNotWhat() {
        XCTAssertThrowsError(try JSONValue(parsing: "{\"token\": secret-value}")) { error in
            let message = String(describing: error)
            XCTAssertTrue(message.contains("byte 10"), message)
            XCTAssertFalse(message.contains("secret"), message)
        }
    }

    func testAcceptsByteOrderMarkAndScalarDocuments() throws {
        XCTAssertEqual(try JSONValue(parsing: Data([0xEF, 0xBB, 0xBF] + Array("1".utf8))), 1)
        XCTAssertEqual(try JSONValue(parsing: "\"x\""), "x")
        XCTAssertEqual(try JSONValue(parsing: " null "), nil)
    }

    func testLastDuplicateKeyWins() throws {
        XCTAssertEqual(try JSONValue(parsing: #"{"a":1,"a":2}"#)["a"], 2)
    }

    func testDeepNestingIsRejectedWithoutCrashing() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        XCTAssertThrowsError(try JSONValue(parsing: deep)) { error in
            XCTAssertTrue(String(describing: error).contains("nested deeper than 512"))
        }
        let limit = JSONValue.maximumDepth
        let allowed = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        XCTAssertNoThrow(try JSONValue(parsing: allowed))
        XCTAssertNoThrow(
            try JSONValue(
                parsing: String(repeating: "{\"a\":", count: limit) + "1" + String(repeating: "}", count: limit)))
    }

    func testSerializesWithSortedKeysAndEscapes() {
        let value: JSONValue = ["b": [1, nil, true], "a": "q\"\\\n\u{01}/\u{e9}", "c": [:]]
        XCTAssertEqual(
            value.serializedString(options: .sortedKeys), #"{"a":"q\"\\\n\u0001/é","b":[1,null,true],"c":{}}"#)
        XCTAssertEqual(
            value.serialized(options: .sortedKeys), Data(value.serializedString(options: .sortedKeys).utf8))
    }

    func testPrettyPrintsLikeMSALPython() {
        let value: JSONValue = ["AccessToken": ["k": ["secret": "x", "n": 1]], "empty": [], "list": [1, 2]]
        let expected = """
            {
                "AccessToken": {
                    "k": {
                        "n": 1,
                        "secret": "x"
                    }
                },
                "empty": [],
                "list": [
                    1,
                    2
                ]
            }
            """
        XCTAssertEqual(value.serializedString(options: [.sortedKeys, .prettyPrinted]), expected)
    }

    func testRoundTripsUnknownFieldsThroughSerialization() throws {
        let text = #"{"x-ms-unknown":{"nested":[1.0,-0,"\u2028",12345678901234567890]},"ok":true}"#
        let value = try JSONValue(parsing: text)
        let again = try JSONValue(parsing: value.serialized(options: .sortedKeys))
        XCTAssertEqual(again, value)
        XCTAssertEqual(again.serializedString(options: .sortedKeys), value.serializedString(options: .sortedKeys))
        XCTAssertEqual(value["x-ms-unknown"]?["nested"]?[0]?.numberValue?.literal, "1.0")
    }

    func testAgreesWithJSONSerializationOnStrings() throws {
        let text = #"["\u0000\u001f\u007f", "\ud834\udd1e", "tab\there"]"#
        let ours = try JSONValue(parsing: text).arrayValue?.compactMap(\.stringValue)
        let foundation = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String]
        XCTAssertEqual(ours, foundation)
        let reparsed = try JSONSerialization.jsonObject(
            with: JSONValue.array(ours?.map(JSONValue.string) ?? []).serialized())
        XCTAssertEqual(reparsed as? [String], foundation)
    }
}
