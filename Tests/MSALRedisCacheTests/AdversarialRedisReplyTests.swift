import Foundation
import MSALNative
import XCTest

@testable import MSALRedisCacheNative

/// The Redis reply parser and the connection against a server that can say anything: every reply
/// is bounded before it is allocated, the deadline holds while a reply streams in, and error text
/// that echoes what we sent never shows a password.
final class AdversarialRedisReplyTests: XCTestCase {
    // MARK: - The parser, without sockets

    private func parse(_ text: String, limits: RedisReplyReader.Limits = .init(bytes: 1 << 20)) throws -> [RedisReply] {
        var reader = RedisReplyReader(limits: limits)
        try reader.feed(Array(text.utf8))
        var replies: [RedisReply] = []
        while let reply = try reader.next() { replies.append(reply) }
        return replies
    }

    private func assertViolation(
        _ text: String, limits: RedisReplyReader.Limits = .init(bytes: 1 << 20), mentions words: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try parse(text, limits: limits), file: file, line: line) { error in
            let native = error as? RedisNativeError
            XCTAssertEqual(native?.kind, .protocolViolation, "\(error)", file: file, line: line)
            XCTAssertTrue(native?.reason.contains(words) ?? false, "\(error)", file: file, line: line)
        }
    }

    func testEveryReplyTypeAndPipelinedReplies() throws {
        let text =
            "+OK\r\n-ERR bad\r\n:-42\r\n$3\r\na\r\n\r\n$0\r\n\r\n$-1\r\n*-1\r\n*0\r\n*2\r\n*1\r\n:1\r\n$1\r\nx\r\n+\r\n"
        XCTAssertEqual(
            try parse(text),
            [
                .status("OK"), .error("ERR bad"), .integer(-42), .bulk(Array("a\r\n".utf8)), .bulk([]), .null, .null,
                .array([]), .array([.array([.integer(1)]), .bulk(Array("x".utf8))]), .status(""),
            ])
    }

    func testBytesFedOneAtATimeGiveTheSameReplies() throws {
        let text = "*3\r\n$5\r\nhello\r\n*2\r\n:7\r\n-E x\r\n+done\r\n:9\r\n"
        var reader = RedisReplyReader(maximumReplyBytes: 1 << 20)
        var replies: [RedisReply] = []
        for byte in Array(text.utf8) {
            try reader.feed([byte])
            while let reply = try reader.next() { replies.append(reply) }
        }
        XCTAssertEqual(replies, try parse(text))
        XCTAssertEqual(replies.count, 2)
    }

    func testMalformedRepliesAreProtocolViolations() {
        assertViolation("HTTP/1.1 400 Bad Request\r\n", mentions: "unknown type byte")
        assertViolation(":12a\r\n", mentions: "not a number")
        assertViolation(":\r\n", mentions: "not a number")
        assertViolation(":9999999999999999999\r\n", mentions: "not a number")
        assertViolation("$-2\r\n", mentions: "not a length")
        assertViolation("*-7\r\n", mentions: "not a length")
        assertViolation("$3\r\nabcd\r\n", mentions: "does not end where its length says")
        assertViolation("+OK\n", mentions: "CR LF")
        assertViolation("\r\n", mentions: "unknown type byte")
    }

    func testCountsAndLengthsAreRefusedBeforeAnythingIsAllocated() {
        let limits = RedisReplyReader.Limits(bytes: 1 << 20, elements: 1000, depth: 3, line: 64)
        // Announced, not sent: refused on the header alone.
        assertViolation("*16000000\r\n", limits: limits, mentions: "more than 1000 elements")
        assertViolation("$2000000\r\n", limits: limits, mentions: "exceeds the limit")
        assertViolation(
            "*600\r\n" + String(repeating: "*1\r\n:1\r\n", count: 600), limits: limits,
            mentions: "more than 1000 elements")
        assertViolation("*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n", limits: limits, mentions: "deeper than 3")
        assertViolation("+" + String(repeating: "a", count: 100) + "\r\n", limits: limits, mentions: "exceeds 64 bytes")
        // An array whose elements cannot fit in the byte limit, even at three bytes each.
        let small = RedisReplyReader.Limits(bytes: 300, elements: 1000)
        assertViolation("*200\r\n", limits: small, mentions: "cannot fit")
        // Within every limit: accepted.
        XCTAssertEqual(
            try parse("*1\r\n*1\r\n*1\r\n:1\r\n", limits: limits), [.array([.array([.array([.integer(1)])])])])
    }

    func testAFailedReaderStaysFailed() throws {
        var reader = RedisReplyReader(maximumReplyBytes: 1 << 20)
        try reader.feed(Array("?\r\n".utf8))
        XCTAssertThrowsError(try reader.next())
        XCTAssertThrowsError(try reader.feed(Array("+OK\r\n".utf8)))
        XCTAssertThrowsError(try reader.next())
    }

    func testCommandsAreFormattedAsArraysOfBulkStrings() {
        let bytes = RedisCommandFormat.format([Array("SET".utf8), [0, 13, 10], []])
        XCTAssertEqual(bytes, Array("*3\r\n$3\r\nSET\r\n$3\r\n".utf8) + [0, 13, 10] + Array("\r\n$0\r\n\r\n".utf8))
    }

    // MARK: - A hostile server

    /// `*16000000` and then `:1` as fast as the socket takes it: the reproduction grew the
    /// process past 600 MiB within a second and overran a 2 s timeout by 5.6 s.
    func testAHugeArrayAnnouncementFloodIsRefusedAtOnceWithinBoundedMemory() throws {
        let peer = try HostilePeer { socket in
            guard (try? socket.send(Array("*16000000\r\n".utf8))) != nil else { return }
            let chunk = [UInt8](String(repeating: ":1\r\n", count: 16384).utf8)
            let until = Date().addingTimeInterval(4)
            while Date() < until { guard (try? socket.send(chunk)) != nil else { return } }
        }
        let memory = RedisProcessMemory.startMeasuring()
        let started = Date()
        let connection = try RedisConnection(peer.endpoint(timeout: 2), tls: nil)
        XCTAssertThrowsError(try connection.command("GET", "k")) { error in
            XCTAssertEqual((error as? RedisNativeError)?.kind, .protocolViolation, "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 0.5)
        XCTAssertLessThan(memory.growth(), 100 << 20)
    }

    /// An array within the element limit whose elements arrive without end, each small: the byte
    /// limit stops it, and the whole command keeps its deadline.
    func testAnEndlessStreamOfSmallElementsStopsAtTheByteLimitOrTheDeadline() throws {
        let peer = try HostilePeer { socket in
            guard (try? socket.send(Array("*65536\r\n".utf8))) != nil else { return }
            let chunk = [UInt8](String(repeating: "*1\r\n", count: 4).utf8) + Array(":1\r\n".utf8)
            let until = Date().addingTimeInterval(4)
            while Date() < until { guard (try? socket.send(chunk)) != nil else { return } }
        }
        var endpoint = peer.endpoint(timeout: 1)
        endpoint.maximumReplyBytes = 1 << 20
        let memory = RedisProcessMemory.startMeasuring()
        let started = Date()
        let connection = try RedisConnection(endpoint, tls: nil)
        XCTAssertThrowsError(try connection.command("GET", "k")) { error in
            let kind = (error as? RedisNativeError)?.kind
            XCTAssertTrue(kind == .protocolViolation || kind == .timedOut, "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.5)
        XCTAssertLessThan(memory.growth(), 100 << 20)
    }

    /// A reply that trickles in a byte at a time, never ending: the timeout is a deadline on the
    /// whole command, not on each read.
    func testATricklingReplyKeepsTheCommandsDeadline() throws {
        let peer = try HostilePeer { socket in
            guard (try? socket.send(Array("*1000\r\n".utf8))) != nil else { return }
            let until = Date().addingTimeInterval(5)
            while Date() < until {
                guard (try? socket.send(Array("+".utf8))) != nil else { return }
                Thread.sleep(forTimeInterval: 0.05)
                guard (try? socket.send(Array("\r\n".utf8))) != nil else { return }
            }
        }
        let started = Date()
        let connection = try RedisConnection(peer.endpoint(timeout: 1), tls: nil)
        XCTAssertThrowsError(try connection.command("GET", "k")) { error in
            XCTAssertEqual((error as? RedisNativeError)?.kind, .timedOut, "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.5)
    }

    /// A server (or an operator's `rename-command AUTH ""`) whose error echoes the command's
    /// arguments: the password never reaches the error.
    func testAnErrorThatEchoesThePasswordIsRedacted() throws {
        let password = "hunter2-correct-horse"
        let peer = try HostilePeer { socket in
            _ = try? socket.receive(maximumCount: 4096)
            try? socket.send(
                Array("-ERR unknown command 'AUTH', with args beginning with: '\(password)' \r\n".utf8))
        }
        var endpoint = peer.endpoint(timeout: 2)
        endpoint.password = password
        XCTAssertThrowsError(try RedisConnection(endpoint, tls: nil)) { error in
            let text = "\(error)"
            XCTAssertEqual((error as? RedisNativeError)?.kind, .authenticationFailed, text)
            XCTAssertFalse(text.contains(password), text)
            XCTAssertFalse(text.contains("hunter2"), text)
            XCTAssertTrue(text.contains("unknown command 'AUTH'"), text)
        }
        // The password anywhere else in an error is masked too, and a transaction's errors are
        // reached inside arrays.
        let reply = RedisReply.array([.error("WRONGPASS \(password) is wrong"), .integer(1)])
        XCTAssertEqual(
            reply.redactingEcho(of: [password]), .array([.error("WRONGPASS *** is wrong"), .integer(1)]))
    }
}

/// The resident memory of this process, from `/proc/self/status` (as the core's adversarial
/// tests measure it).
struct RedisProcessMemory {
    private let residentBefore: Int
    private let peakWasReset: Bool

    static func startMeasuring() -> RedisProcessMemory {
        let reset = (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
        return RedisProcessMemory(residentBefore: field("VmRSS") ?? 0, peakWasReset: reset)
    }

    /// Bytes grown since ``startMeasuring()``: at the peak when it could be reset, else now.
    func growth() -> Int {
        let after = (peakWasReset ? Self.field("VmHWM") : nil) ?? Self.field("VmRSS") ?? 0
        return max(0, after - residentBefore)
    }

    private static func field(_ name: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            return Int(line.dropFirst(name.count + 1).filter(\.isNumber)).map { $0 * 1024 }
        }
        return nil
    }
}
