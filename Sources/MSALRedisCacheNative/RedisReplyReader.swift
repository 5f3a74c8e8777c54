internal import CMSALHiredis

/// Parses the bytes a Redis server sends into ``RedisReply`` values with hiredis' reader.
///
/// Limits that hiredis 0.14 does not impose itself: at most ``maximumReplyBytes`` bytes may be
/// buffered for one reply (an endless bulk string or array fails instead of growing the process
/// without bound). Nesting deeper than hiredis' fixed limit (7 levels in 0.14) is a protocol error
/// of hiredis. Used by one thread at a time.
package final class RedisReplyReader {
    private let reader: UnsafeMutablePointer<redisReader>
    /// The most bytes one reply may take.
    package let maximumReplyBytes: Int
    /// Bytes fed since the last complete reply.
    private var pending = 0

    package init(maximumReplyBytes: Int) throws(RedisNativeError) {
        guard let reader = redisReaderCreate() else {
            throw RedisNativeError(.protocolViolation, "redisReaderCreate failed (out of memory)")
        }
        self.reader = reader
        self.maximumReplyBytes = maximumReplyBytes
        // Keep no more than 64 KiB of unused buffer between replies.
        cmsal_hiredis_reader_set_maxbuf(reader, 64 * 1024)
    }

    deinit {
        redisReaderFree(reader)
    }

    /// Hands received bytes to the parser.
    package func feed(_ bytes: [UInt8]) throws(RedisNativeError) {
        guard !bytes.isEmpty else { return }
        pending += bytes.count
        guard pending <= maximumReplyBytes else {
            throw RedisNativeError(
                .protocolViolation, "a reply exceeds the limit of \(maximumReplyBytes) bytes")
        }
        let result = bytes.withUnsafeBytes { buffer in
            redisReaderFeed(reader, buffer.baseAddress!.assumingMemoryBound(to: CChar.self), buffer.count)
        }
        guard result == REDIS_OK else { throw failure() }
    }

    /// The next complete reply, or `nil` when more bytes are needed.
    package func next() throws(RedisNativeError) -> RedisReply? {
        var raw: UnsafeMutableRawPointer?
        guard redisReaderGetReply(reader, &raw) == REDIS_OK else { throw failure() }
        guard let raw else { return nil }
        defer { freeReplyObject(raw) }
        // What remains buffered belongs to the next reply (pipelined replies arrive together).
        pending = Int(reader.pointee.len) - Int(reader.pointee.pos)
        return Self.convert(raw.assumingMemoryBound(to: redisReply.self))
    }

    private func failure() -> RedisNativeError {
        let text = String(cString: cmsal_hiredis_reader_error(reader))
        return RedisNativeError(.protocolViolation, "the server's reply is not valid Redis protocol: \(text)")
    }

    private static func convert(_ reply: UnsafeMutablePointer<redisReply>) -> RedisReply {
        let value = reply.pointee
        switch value.type {
        case REDIS_REPLY_STRING:
            return .bulk(bytes(value.str, value.len))
        case REDIS_REPLY_STATUS:
            return .status(String(decoding: bytes(value.str, value.len), as: UTF8.self))
        case REDIS_REPLY_ERROR:
            return .error(String(decoding: bytes(value.str, value.len), as: UTF8.self))
        case REDIS_REPLY_INTEGER:
            return .integer(value.integer)
        case REDIS_REPLY_ARRAY:
            var elements: [RedisReply] = []
            elements.reserveCapacity(min(value.elements, 1 << 16))
            for index in 0..<value.elements {
                guard let element = value.element[index] else { continue }
                elements.append(convert(element))
            }
            return .array(elements)
        default:
            return .null
        }
    }

    private static func bytes(_ pointer: UnsafeMutablePointer<CChar>?, _ count: Int) -> [UInt8] {
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}

@available(*, unavailable)
extension RedisReplyReader: Sendable {}

/// Formats a command as the Redis protocol (hiredis' `redisFormatCommandArgv`).
package enum RedisCommandFormat {
    /// The bytes of the command made of `arguments` (binary-safe).
    package static func format(_ arguments: [[UInt8]]) throws(RedisNativeError) -> [UInt8] {
        let count = arguments.count
        // Pointers into copies that live until the formatting is done.
        let storage = arguments.map { argument -> UnsafeMutablePointer<CChar> in
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: max(1, argument.count))
            argument.withUnsafeBytes { source in
                if let base = source.baseAddress {
                    UnsafeMutableRawPointer(copy).copyMemory(from: base, byteCount: argument.count)
                }
            }
            return copy
        }
        defer { for pointer in storage { pointer.deallocate() } }
        var pointers: [UnsafePointer<CChar>?] = storage.map { UnsafePointer($0) }
        var lengths: [Int] = arguments.map(\.count)
        var target: UnsafeMutablePointer<CChar>?
        let length = pointers.withUnsafeMutableBufferPointer { argv in
            lengths.withUnsafeMutableBufferPointer { argvlen in
                redisFormatCommandArgv(&target, Int32(count), argv.baseAddress, argvlen.baseAddress)
            }
        }
        guard length >= 0, let target else {
            throw RedisNativeError(.protocolViolation, "redisFormatCommandArgv failed (out of memory)")
        }
        defer { cmsal_hiredis_free_command(target) }
        return Array(UnsafeRawBufferPointer(start: target, count: Int(length)))
    }
}
