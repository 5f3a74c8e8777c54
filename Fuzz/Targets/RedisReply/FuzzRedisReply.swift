// libFuzzer target: the Redis reply parser of MSALRedisCache, which reads whatever a Redis server
// (or something posing as one) sends. Built by scripts/fuzz.sh (`--sanitize=fuzzer`).
import MSALRedisCacheNative

/// Parses the input whole and again in pieces (cut where its first byte says): both must give the
/// same replies and fail alike. Every reply must survive a write and a re-read unchanged.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRedisReply(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // More bytes than any input, so that the whole and the pieces meet the same limits.
    let limits = RedisReplyReader.Limits(bytes: 1 << 20, elements: 4096, depth: 8, line: 1024)
    let whole = parse([bytes], limits: limits)
    let step = max(1, Int(bytes.first ?? 1) % 17)
    let pieces = stride(from: 0, to: bytes.count, by: step).map { Array(bytes[$0..<min($0 + step, bytes.count)]) }
    let cut = parse(pieces, limits: limits)
    precondition(whole.replies == cut.replies, "pieces gave other replies than the whole")
    precondition(whole.failed == cut.failed, "pieces failed where the whole did not, or the other way")
    for reply in whole.replies {
        let again = parse([write(reply)], limits: RedisReplyReader.Limits(bytes: 1 << 20, elements: 1 << 16))
        precondition(again.replies == [reply] && !again.failed, "a reply changed in a write and re-read")
    }
    return 0
}

private func parse(_ pieces: [[UInt8]], limits: RedisReplyReader.Limits) -> (replies: [RedisReply], failed: Bool) {
    var reader = RedisReplyReader(limits: limits)
    var replies: [RedisReply] = []
    do {
        for piece in pieces {
            try reader.feed(piece)
            while let reply = try reader.next() { replies.append(reply) }
        }
        return (replies, false)
    } catch {
        return (replies, true)
    }
}

/// RESP2 for `reply` (a status or error holding CR or LF cannot be written, and is not produced).
private func write(_ reply: RedisReply) -> [UInt8] {
    switch reply {
    case .status(let text): Array("+\(text)\r\n".utf8)
    case .error(let text): Array("-\(text)\r\n".utf8)
    case .integer(let value): Array(":\(value)\r\n".utf8)
    case .null: Array("$-1\r\n".utf8)
    case .bulk(let bytes): Array("$\(bytes.count)\r\n".utf8) + bytes + Array("\r\n".utf8)
    case .array(let elements): Array("*\(elements.count)\r\n".utf8) + elements.flatMap(write)
    }
}
