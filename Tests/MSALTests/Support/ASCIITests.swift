import Foundation
import XCTest

@testable import MSAL

/// The ASCII fast paths give exactly what Foundation's functions give.
final class ASCIITests: XCTestCase {
    func testTrimmedMatchesFoundation() {
        let cases = [
            "", " ", "User.Read", " User.Read", "User.Read\n", "\t a b \r\n", "\u{00A0}User.Read", "User.Read\u{2003}",
            "é", " é ", "\u{000B}x\u{000C}", "x\u{0085}", "abc\u{200B}",
        ]
        for text in cases {
            let expected = text.trimmingCharacters(in: .whitespacesAndNewlines)
            XCTAssertEqual(ASCII.trimmed(text), expected, "\(text.debugDescription)")
            let padded = "|\(text)|".dropFirst().dropLast()
            XCTAssertEqual(ASCII.trimmed(padded), expected, "substring \(text.debugDescription)")
        }
    }

    func testUnreservedIsExactlyRFC3986s() {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        for byte in UInt8.min...UInt8.max {
            XCTAssertEqual(ASCII.isUnreserved(byte), unreserved.contains(byte), "\(byte)")
        }
    }

    func testEqualsIgnoringCaseOnlyFoldsASCIILetters() {
        XCTAssertTrue(ASCII.equalsIgnoringCase("Content-Type", "content-type"))
        XCTAssertTrue(ASCII.equalsIgnoringCase("", ""))
        XCTAssertFalse(ASCII.equalsIgnoringCase("Accept", "Accept-Encoding"))
        XCTAssertFalse(ASCII.equalsIgnoringCase("[", "{"), "'[' and '{' differ by the case bit but are not letters")
        XCTAssertFalse(ASCII.equalsIgnoringCase("É", "é"))
    }

    func testClientInfoWithOrWithoutPadding() throws {
        let json = Data(#"{"uid":"U1","utid":"T1"}"#.utf8).base64EncodedString()
        let unpadded = json.replacingOccurrences(of: "=", with: "")
        for raw in [json, unpadded, unpadded + "===", "=" + unpadded] {
            let info = try ClientInfo(raw: raw)
            XCTAssertEqual(info.homeAccountId, "u1.t1", raw)
        }
        XCTAssertThrowsError(try ClientInfo(raw: "==="))
    }

    func testWordWiseCheckAgreesWithAByteLoopForEveryByteAtEveryPosition() {
        func reference(_ bytes: [UInt8]) -> Bool {
            bytes.allSatisfy { $0 < 0x80 && !(0x41...0x5A).contains($0) }
        }
        for length in [1, 7, 8, 9, 16, 17] {
            for position in 0..<length {
                for value in 0...255 {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[position] = UInt8(value)
                    let fast = ASCII.isASCIIWithoutUppercase(bytes.span)
                    XCTAssertEqual(fast, reference(bytes), "byte \(value) at \(position) of \(length)")
                }
            }
        }
    }

    func testLoweredComparisonAgreesWithAByteLoopForEveryByteAtEveryPlace() {
        // Every byte value at every position of strings of 1 to 19 bytes (the word loop and the
        // tail), compared with its own lowercase and with a copy that differs in that byte.
        func lowered(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
        for length in 1..<20 {
            for position in 0..<length {
                for value in 0...255 {
                    var bytes = [UInt8](repeating: UInt8(ascii: "Q"), count: length)
                    bytes[position] = UInt8(value)
                    let ascii = value < 0x80
                    let lower = bytes.map(lowered)
                    var other = lower
                    other[position] ^= 0x01
                    XCTAssertEqual(
                        ASCII.lowercased(bytes.span, equals: lower.span, at: 0), ascii ? true : nil,
                        "\(value) at \(position) of \(length)")
                    XCTAssertEqual(
                        ASCII.lowercased(bytes.span, equals: other.span, at: 0), ascii ? false : nil,
                        "\(value) at \(position) of \(length)")
                    // The same bytes further on in a longer one.
                    XCTAssertEqual(
                        ASCII.lowercased(bytes.span, equals: ([0x20, 0x41] + lower).span, at: 2), ascii ? true : nil,
                        "\(value) at \(position) of \(length), at 2")
                }
            }
        }
    }
}
