import MSALNative
import XCTest

/// The span primitives the JSON parser reads bytes through, against plain byte loops.
final class ByteSpansTests: XCTestCase {
    private static let sample: [UInt8] = (0..<67).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 7) }

    func testWordsAreLittleEndianAtEveryOffset() {
        let bytes = Self.sample
        for offset in 0...(bytes.count - 8) {
            let expected = (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
            XCTAssertEqual(bytes.span.littleEndianWord(at: offset), expected, "offset \(offset)")
        }
    }

    func testBytesAreComparedAtAnOffsetAndNeverPastTheEnd() {
        let bytes = Self.sample
        for offset in 0...bytes.count {
            for length in 0...(bytes.count - offset) {
                let same = Array(bytes[offset..<(offset + length)])
                XCTAssertTrue(bytes.span.bytesEqual(at: offset, same.span), "\(offset) + \(length)")
                if length > 0 {
                    for place in [0, length / 2, length - 1] {
                        var other = same
                        other[place] ^= 0x40
                        XCTAssertFalse(bytes.span.bytesEqual(at: offset, other.span), "\(offset) + \(length) @\(place)")
                    }
                }
                // One byte more than there is.
                let longer = same + [0]
                XCTAssertFalse(bytes.span.bytesEqual(at: offset, longer.span))
            }
        }
        let text = Array("xx\"secret\"".utf8)
        XCTAssertTrue(text.span.bytesEqual(at: 3, "secret"))
        XCTAssertFalse(text.span.bytesEqual(at: 5, "secret"))
    }

    func testTextIsDecodedOrValidated() {
        let valid = Array("héllo".utf8)
        XCTAssertEqual(valid.span.decodedString(), "héllo")
        XCTAssertEqual(valid.span.validatedString(), "héllo")
        let broken: [UInt8] = [0x61, 0xC3]
        XCTAssertEqual(broken.span.decodedString(), "a\u{FFFD}")
        XCTAssertNil(broken.span.validatedString())
    }

    func testStringsAreWrittenThroughAnOutputSpan() {
        let text = String(utf8Capacity: 8) { output in
            for byte in "abc".utf8 { output.append(byte) }
        }
        XCTAssertEqual(text, "abc")
        XCTAssertEqual("naïve".withUTF8Span { $0.count }, 6)
    }
}
