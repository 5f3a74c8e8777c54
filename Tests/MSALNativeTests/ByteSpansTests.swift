import MSALNative
import XCTest

/// The span primitives the cache's JSON layer reads bytes through, against plain byte loops.
final class ByteSpansTests: XCTestCase {
    private static let sample: [UInt8] = (0..<67).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 7) }

    func testWordsAreLittleEndianAtEveryOffset() {
        let bytes = Self.sample
        for offset in 0...(bytes.count - 8) {
            let expected = (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
            XCTAssertEqual(bytes.span.littleEndianWord(at: offset), expected, "offset \(offset)")
        }
    }

    func testTheFirstOffsetOfAByteIsFoundWithinTheRangeOnly() {
        let bytes = Self.sample
        for start in 0..<bytes.count {
            for end in start...bytes.count {
                for byte in [bytes[start], bytes[end - 1 < start ? start : end - 1], 0xFF] {
                    let expected = bytes[start..<end].firstIndex(of: byte)
                    XCTAssertEqual(bytes.span.firstOffset(of: byte, in: start..<end), expected, "\(start)..<\(end)")
                }
            }
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

    func testATailMovesToTheFront() {
        let bytes = Self.sample
        var moved = bytes
        moved.moveToFront(10..<30)
        XCTAssertEqual(Array(moved[..<20]), Array(bytes[10..<30]))
        XCTAssertEqual(Array(moved[20...]), Array(bytes[20...]), "the rest is left as it was")
    }

    func testTheDigestCoversEveryByteAndTheLength() {
        let bytes = Self.sample
        for length in 0..<80 {
            var input = Array(bytes.prefix(length)) + Array(repeating: 0x5A, count: max(0, length - bytes.count))
            let original = ByteDigest.digest(input.span)
            for index in 0..<length {
                input[index] ^= 0x01
                XCTAssertNotEqual(ByteDigest.digest(input.span), original, "\(length) at \(index)")
                input[index] ^= 0x01
            }
            XCTAssertEqual(ByteDigest.digest(input.span), original)
            XCTAssertNotEqual(ByteDigest.digest((input + [0]).span), original, "the length counts")
        }
    }

    func testTheOutputKeepsOrPassesOnWhatIsWritten() throws {
        let bytes = Self.sample
        let memory = ByteOutput(capacity: 64)
        for byte in bytes { memory.append(byte) }
        memory.append(bytes.span)
        memory.append("end")
        memory.appendInteger(-1_234_567_890_123)
        memory.appendInteger(0)
        let expected = bytes + bytes + Array("end-12345678901230".utf8)
        XCTAssertEqual(memory.bytes, expected)
        XCTAssertEqual(memory.position, expected.count)
        XCTAssertEqual(memory.withBuffered(from: 3) { $0.count }, expected.count - 3)

        // Chunks of 4096 with their offsets, and a long run handed on as it is.
        var received: [(Int, [UInt8])] = []
        let chunked = ByteOutput(chunkSize: 4096, startingAt: 100) { chunk, offset in
            received.append((offset, chunk.indices.map { chunk[$0] }))
        }
        let long = (0..<20_000).map { UInt8(truncatingIfNeeded: $0) }
        for byte in long.prefix(5000) { chunked.append(byte) }
        chunked.appendPassingThrough(long.span)
        XCTAssertNil(chunked.withBuffered(from: 100) { _ in 0 }, "the start was handed on")
        chunked.append(long.span.extracting(..<10))
        try chunked.finish()
        XCTAssertEqual(received.map(\.0), [100, 4196, 5100, 25100])
        XCTAssertEqual(received.flatMap(\.1), Array(long.prefix(5000)) + long + Array(long.prefix(10)))
    }
}
