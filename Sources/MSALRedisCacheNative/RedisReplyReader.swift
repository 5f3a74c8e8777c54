/// Parses the bytes a Redis server sends (RESP2) into ``RedisReply`` values, one reply at a time,
/// as they arrive.
///
/// A server may say anything, so every reply is bounded before anything is allocated for it:
/// - at most ``Limits/bytes`` bytes per reply, counted as they arrive (an endless bulk string, line
///   or array fails as soon as it passes the limit, not when it ends);
/// - at most ``Limits/elements`` array elements per reply, all levels together, checked against
///   each array's announced count before any element is read (`*16000000` fails at once);
/// - at most ``Limits/depth`` levels of nested arrays;
/// - a header line (`+`, `-`, `:`, `$`, `*`) of at most ``Limits/line`` bytes.
///
/// The parser keeps where it is between calls, so bytes fed in small pieces are each looked at a
/// bounded number of times. Used by one thread at a time.
package struct RedisReplyReader {
    /// The bounds of one reply.
    package struct Limits: Sendable, Equatable {
        /// The most bytes one reply may take, header lines and bulk strings together.
        package var bytes: Int
        /// The most array elements one reply may hold, counting every level.
        package var elements: Int
        /// The deepest nesting of arrays (an array inside an array is depth 2).
        package var depth: Int
        /// The longest header line, simple string or error reply.
        package var line: Int

        package init(bytes: Int, elements: Int = 65_536, depth: Int = 8, line: Int = 64 * 1024) {
            self.bytes = bytes
            self.elements = elements
            self.depth = depth
            self.line = line
        }
    }

    package let limits: Limits

    /// Received bytes not yet consumed by a complete reply.
    private var buffer: [UInt8] = []
    /// Where parsing continues in `buffer` (everything before is part of the reply under way).
    private var position = 0
    /// Where the search for the current header line's end resumes.
    private var lineScan = 0
    /// The arrays under way, outermost first.
    private var open: [(remaining: Int, elements: [RedisReply])] = []
    /// Elements announced by the arrays of the reply under way.
    private var elementsAnnounced = 0
    /// Set after a protocol violation: nothing more is parsed.
    private var failed: RedisNativeError?

    package init(limits: Limits) {
        self.limits = limits
    }

    package init(maximumReplyBytes: Int) {
        self.init(limits: Limits(bytes: maximumReplyBytes))
    }

    /// Hands received bytes to the parser; throws when the reply under way passes
    /// ``Limits/bytes``.
    package mutating func feed(_ bytes: [UInt8]) throws(RedisNativeError) {
        if let failed { throw failed }
        guard !bytes.isEmpty else { return }
        guard buffer.count + bytes.count <= limits.bytes else {
            throw fail("a reply exceeds the limit of \(limits.bytes) bytes")
        }
        buffer += bytes
    }

    /// The next complete reply, or `nil` when more bytes are needed.
    package mutating func next() throws(RedisNativeError) -> RedisReply? {
        if let failed { throw failed }
        while true {
            guard let value = try value() else { return nil }
            var finished = value
            // Hand the value to the arrays it completes.
            while true {
                guard var innermost = open.popLast() else {
                    // A whole reply: what follows belongs to the next one (pipelined replies).
                    buffer.removeSubrange(0..<position)
                    position = 0
                    lineScan = 0
                    elementsAnnounced = 0
                    return finished
                }
                innermost.elements.append(finished)
                innermost.remaining -= 1
                guard innermost.remaining == 0 else {
                    open.append(innermost)
                    break
                }
                finished = .array(innermost.elements)
            }
        }
    }

    /// The next value that needs no more input (a scalar, an empty or null array), or `nil` when
    /// more bytes are needed. Opens the arrays it meets.
    private mutating func value() throws(RedisNativeError) -> RedisReply? {
        while true {
            guard let header = try headerLine() else { return nil }
            let (kind, line, after) = header
            switch kind {
            case UInt8(ascii: "+"):
                position = after
                return .status(String(decoding: line, as: UTF8.self))
            case UInt8(ascii: "-"):
                position = after
                return .error(String(decoding: line, as: UTF8.self))
            case UInt8(ascii: ":"):
                guard let integer = Self.integer(line) else { throw fail("an integer reply is not a number") }
                position = after
                return .integer(integer)
            case UInt8(ascii: "$"):
                guard let length = Self.integer(line), length >= -1 else {
                    throw fail("a bulk string's length is not a length")
                }
                if length == -1 {
                    position = after
                    return .null
                }
                // The announced length is held against the limit before a byte of it is kept.
                guard length <= limits.bytes - after - 2 else {
                    throw fail("a bulk string of \(length) bytes exceeds the limit of \(limits.bytes) bytes")
                }
                let end = after + Int(length)
                guard buffer.count >= end + 2 else {
                    lineScan = position  // the header is read again with the rest
                    return nil
                }
                guard buffer[end] == UInt8(ascii: "\r"), buffer[end + 1] == UInt8(ascii: "\n") else {
                    throw fail("a bulk string does not end where its length says")
                }
                position = end + 2
                lineScan = position
                return .bulk(Array(buffer[after..<end]))
            case UInt8(ascii: "*"):
                guard let count = Self.integer(line), count >= -1 else {
                    throw fail("an array's length is not a length")
                }
                position = after
                if count == -1 { return .null }
                if count == 0 { return .array([]) }
                guard open.count < limits.depth else {
                    throw fail("arrays are nested deeper than \(limits.depth) levels")
                }
                guard count <= limits.elements - elementsAnnounced else {
                    throw fail("a reply announces more than \(limits.elements) elements")
                }
                elementsAnnounced += Int(count)
                // Each element takes at least three bytes ("+\r\n"): a count the byte limit
                // cannot hold is refused now, and room is reserved only for what can arrive.
                guard Int(count) <= (limits.bytes - after) / 3 else {
                    throw fail("an array of \(count) elements cannot fit in \(limits.bytes) bytes")
                }
                var elements: [RedisReply] = []
                elements.reserveCapacity(min(Int(count), 1024))
                open.append((Int(count), elements))
            default:
                throw fail("a reply starts with an unknown type byte \(kind)")  // not reached
            }
        }
    }

    /// The type byte and text of the header line at `position`, and where the line's successor
    /// starts; `nil` when its end has not arrived.
    private mutating func headerLine() throws(RedisNativeError) -> (UInt8, ArraySlice<UInt8>, Int)? {
        guard position < buffer.count else { return nil }
        guard Self.typeBytes.contains(buffer[position]) else {
            throw fail("a reply starts with an unknown type byte \(buffer[position])")
        }
        var index = max(lineScan, position + 1)
        while index < buffer.count {
            if buffer[index] == UInt8(ascii: "\n") {
                guard buffer[index - 1] == UInt8(ascii: "\r"), index - 1 > position else {
                    throw fail("a line ends without CR LF")
                }
                lineScan = index + 1
                return (buffer[position], buffer[(position + 1)..<(index - 1)], index + 1)
            }
            index += 1
            guard index - position <= limits.line + 3 else {
                throw fail("a line exceeds \(limits.line) bytes")
            }
        }
        lineScan = index
        return nil
    }

    /// The first bytes of RESP2's five reply types.
    private static let typeBytes: [UInt8] = Array("+-:$*".utf8)

    /// A decimal number of a header line: an optional minus sign and at most 18 digits.
    private static func integer(_ text: ArraySlice<UInt8>) -> Int64? {
        var digits = text[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.count <= 18 else { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return negative ? -value : value
    }

    private mutating func fail(_ reason: String) -> RedisNativeError {
        let error = RedisNativeError(.protocolViolation, "the server's reply is not valid Redis protocol: \(reason)")
        failed = error
        buffer = []
        open = []
        return error
    }
}

/// Formats a command as the Redis protocol: an array of bulk strings.
package enum RedisCommandFormat {
    /// The bytes of the command made of `arguments` (binary-safe).
    package static func format(_ arguments: [[UInt8]]) -> [UInt8] {
        var bytes = Array("*\(arguments.count)\r\n".utf8)
        bytes.reserveCapacity(bytes.count + arguments.reduce(0) { $0 + $1.count + 16 })
        for argument in arguments {
            bytes += Array("$\(argument.count)\r\n".utf8)
            bytes += argument
            bytes += [UInt8(ascii: "\r"), UInt8(ascii: "\n")]
        }
        return bytes
    }
}
