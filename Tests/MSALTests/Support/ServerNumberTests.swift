import Foundation
import XCTest

@testable import MSAL

/// ``ServerNumber``: JSON numbers and numeric strings, finite and in range, or the reason not.
final class ServerNumberTests: XCTestCase {
    private func read(_ json: String, _ range: ServerNumber.Range = .lifetime) throws -> Result<
        Int64, ServerNumber.Problem
    >? {
        let object = try XCTUnwrap(try JSONValue(parsing: Data(("{\"v\":" + json + "}").utf8)).objectValue)
        return ServerNumber.seconds(object["v"], in: range)
    }

    func testNumbersAndNumericStringsInRange() throws {
        XCTAssertEqual(try read("3599"), .success(3599))
        XCTAssertEqual(try read("\"3599\""), .success(3599))
        XCTAssertEqual(try read("\" 3599\\t\""), .success(3599))
        XCTAssertEqual(try read("3599.99"), .success(3599), "a fraction is dropped")
        XCTAssertEqual(try read("3.6e3"), .success(3600))
        XCTAssertEqual(try read("\"+60\""), .success(60))
        XCTAssertEqual(try read("0"), .success(0))
        XCTAssertEqual(try read("-0"), .success(0))
        XCTAssertEqual(try read("-0.5"), .success(0), "toward zero, so just below 0 is 0")
        XCTAssertEqual(try read("315576000"), .success(315_576_000))
        XCTAssertEqual(ServerNumber.seconds(nil, in: .lifetime), nil, "absent stays absent")
    }

    func testWhatIsNotANumberInRange() throws {
        for text in [
            "\"abc\"", "\"\"", "\" \"", "true", "null", "[]", "{}", "\"0x10\"", "\"inf\"", "\"nan\"", "\"1e\"",
        ] {
            XCTAssertEqual(try read(text), .failure(.notANumber), text)
        }
        XCTAssertEqual(try read("1e400"), .failure(.notFinite))
        XCTAssertEqual(try read("-1e400"), .failure(.notFinite))
        XCTAssertEqual(try read("\"" + String(repeating: "9", count: 65) + "\""), .failure(.notANumber), "too long")
        for (text, value) in [
            ("1e30", 1e30), ("-1e30", -1e30), ("9.3e18", 9.3e18), ("\"1e30\"", 1e30), ("-1", -1.0),
            ("315576001", 315_576_001.0), ("9223372036854775807", 9.223372036854775807e18),
        ] {
            XCTAssertEqual(try read(text), .failure(.outOfRange(value, .lifetime)), text)
        }
    }

    func testTheRangesAreTheDocumentedOnes() throws {
        XCTAssertEqual(ServerNumber.Range.lifetime.bounds, 0...315_576_000)
        XCTAssertEqual(ServerNumber.Range.interval.bounds, 0...3_600)
        XCTAssertEqual(ServerNumber.Range.retryAfter.bounds, 0...86_400)
        XCTAssertEqual(ServerNumber.Range.epoch.bounds, 0...4_102_444_800)
        XCTAssertEqual(try read("3601", .interval), .failure(.outOfRange(3601, .interval)))
        XCTAssertEqual(try read("4102444800", .epoch), .success(4_102_444_800))
        XCTAssertEqual(try read("4102444801", .epoch), .failure(.outOfRange(4_102_444_801, .epoch)))
    }

    func testTextFromAHeader() {
        XCTAssertEqual(ServerNumber.seconds(text: "120", in: .retryAfter), .success(120))
        XCTAssertEqual(
            ServerNumber.seconds(text: "9.3e18", in: .retryAfter), .failure(.outOfRange(9.3e18, .retryAfter)))
        XCTAssertEqual(ServerNumber.seconds(text: "Fri, 15 Jan 2027", in: .retryAfter), .failure(.notANumber))
    }

    func testEveryDoubleIsCheckedWithoutATrap() {
        let samples: [Double] = [
            .nan, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 9.223372036854775807e18,
            -9.223372036854775808e18, .leastNonzeroMagnitude, 4_102_444_800.999, 1e19, -1e19,
        ]
        for value in samples {
            for range in [ServerNumber.Range.lifetime, .interval, .retryAfter, .epoch] {
                if case .success(let seconds) = ServerNumber.check(value, in: range) {
                    XCTAssertTrue(range.bounds.contains(seconds), "\(value) in \(range)")
                }
            }
        }
    }

    func testTheProblemNamesTheRange() {
        XCTAssertEqual(
            ServerNumber.Problem.outOfRange(1e30, .lifetime).description,
            "is 1e+30, outside a lifetime (0 to 315576000 s)")
        XCTAssertEqual(
            ServerNumber.Problem.outOfRange(-5, .interval).description, "is -5, outside an interval (0 to 3600 s)")
    }
}
