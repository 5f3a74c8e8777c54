/// An output buffer for the cache writer: either collects the whole document in memory, or
/// hands full chunks to a sink (a file descriptor) so a large cache is written with a small,
/// fixed buffer.
final class ByteOutput {
    private var buffer: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0
    /// Bytes already handed to the sink.
    private(set) var flushed = 0
    /// Receives each full chunk with its document offset.
    private let sink: ((UnsafeRawBufferPointer, Int) throws -> Void)?
    /// The first error the sink threw; later writes are dropped.
    private(set) var sinkError: (any Error)?

    /// A buffer that keeps everything in memory (``bytes``).
    init(capacity: Int = 1 << 16) {
        self.capacity = max(capacity, 64)
        buffer = .allocate(capacity: self.capacity)
        sink = nil
    }

    /// A buffer that passes each full chunk of `chunkSize` bytes to `sink`, with the chunk's
    /// document offset (the first one's is `start`, where the document part written begins);
    /// call ``finish()``.
    init(chunkSize: Int, startingAt start: Int = 0, sink: @escaping (UnsafeRawBufferPointer, Int) throws -> Void) {
        capacity = max(chunkSize, 4096)
        buffer = .allocate(capacity: capacity)
        self.sink = sink
        flushed = start
    }

    deinit {
        buffer.deallocate()
    }

    /// The document offset of the next byte written.
    var position: Int { flushed + count }

    /// Everything written, for an in-memory buffer.
    var bytes: [UInt8] {
        Array(UnsafeBufferPointer(start: buffer, count: count))
    }

    /// The bytes written from document offset `start` on, while they are all still in the buffer.
    func buffered(from start: Int) -> UnsafeBufferPointer<UInt8>? {
        guard start >= flushed, start <= position else { return nil }
        return UnsafeBufferPointer(start: buffer + (start - flushed), count: position - start)
    }

    /// Passes what is buffered to the sink; throws the sink's first error.
    func finish() throws {
        flush()
        if let sinkError { throw sinkError }
    }

    private func flush() {
        guard let sink, count > 0 else { return }
        if sinkError == nil {
            do {
                try sink(UnsafeRawBufferPointer(start: buffer, count: count), flushed)
            } catch {
                sinkError = error
            }
        }
        flushed += count
        count = 0
    }

    @inline(__always)
    private func reserve(_ needed: Int) {
        if count + needed <= capacity { return }
        if sink != nil {
            flush()
            if needed <= capacity { return }
        }
        var newCapacity = capacity * 2
        while newCapacity < count + needed { newCapacity *= 2 }
        let newBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBuffer.update(from: buffer, count: count)
        buffer.deallocate()
        buffer = newBuffer
        capacity = newCapacity
    }

    @inline(__always)
    func append(_ byte: UInt8) {
        reserve(1)
        buffer[count] = byte
        count += 1
    }

    @inline(__always)
    func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (buffer + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Appends `bytes`, which a large run of hands to the sink as they are, without copying them
    /// into the buffer first (what is buffered goes first); a small one is buffered.
    func appendPassingThrough(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let sink, bytes.count >= Self.passThroughBytes, let base = bytes.baseAddress else {
            append(bytes)
            return
        }
        flush()
        if sinkError == nil {
            do {
                try sink(UnsafeRawBufferPointer(start: base, count: bytes.count), flushed)
            } catch {
                sinkError = error
            }
        }
        flushed += bytes.count
    }

    /// Runs shorter than this are copied into the buffer (a system call each would cost more).
    static let passThroughBytes = 1 << 14

    @inline(__always)
    func append(_ literal: StaticString) {
        append(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Appends the bytes of `string` as they are (no quotes, no escaping).
    func appendRaw(_ string: String) {
        string.withUTF8Bytes { append($0) }
    }

    /// Appends `string` as a JSON string literal.
    @inline(__always)
    func appendQuoted(_ string: String) {
        string.withUTF8Bytes { appendQuoted($0) }
    }

    func appendQuoted(_ bytes: UnsafeBufferPointer<UInt8>) {
        append(UInt8(ascii: "\""))
        if JSONStringEscapes.isPlain(bytes) {
            append(bytes)
        } else {
            var escaped: [UInt8] = []
            escaped.reserveCapacity(bytes.count + 16)
            JSONStringEscapes.appendEscaped(bytes, to: &escaped)
            escaped.withUnsafeBufferPointer { append($0) }
        }
        append(UInt8(ascii: "\""))
    }

    /// Appends `,"name":"value"` (or without the comma for the first member).
    @inline(__always)
    func member(_ name: StaticString, _ value: String, first: inout Bool) {
        if first { first = false } else { append(UInt8(ascii: ",")) }
        append(UInt8(ascii: "\""))
        append(name)
        append(StaticString("\":"))
        appendQuoted(value)
    }

    /// A string member when `value` is not `nil`.
    @inline(__always)
    func member(_ name: StaticString, _ value: String?, first: inout Bool) {
        if let value { member(name, value, first: &first) }
    }

    /// A timestamp member written as a string of integer epoch seconds, when present.
    @inline(__always)
    func member(_ name: StaticString, timestamp: Int64?, first: inout Bool) {
        guard let timestamp else { return }
        if first { first = false } else { append(UInt8(ascii: ",")) }
        append(UInt8(ascii: "\""))
        append(name)
        append(StaticString("\":\""))
        appendInteger(timestamp)
        append(UInt8(ascii: "\""))
    }

    /// Appends `,"secret":"…"` and returns where the secret's JSON text went: `text`, or, when the
    /// store keeps the secret as a place in a file (`kept`), the text as written there, copied
    /// through `copier` (which records a failure when that file changed).
    func secretMember(_ text: String, kept: CacheFileRange?, copier: CacheSecretCopier, first: inout Bool)
        -> SecretPlacement
    {
        if first { first = false } else { append(UInt8(ascii: ",")) }
        append(StaticString("\"secret\":\""))
        let offset = position
        var placement = SecretPlacement(offset: offset, length: 0, escaped: false, check: 0)
        if let range = kept {
            copier.withText(range) { append($0) }
            placement.escaped = range.escaped
            placement.check = range.check
        } else {
            var text = text
            text.withUTF8 { bytes in
                if JSONStringEscapes.isPlain(bytes) {
                    append(bytes)
                    placement.check = CacheFileRange.check(bytes)
                } else {
                    var escaped: [UInt8] = []
                    escaped.reserveCapacity(bytes.count + 16)
                    JSONStringEscapes.appendEscaped(bytes, to: &escaped)
                    escaped.withUnsafeBufferPointer {
                        append($0)
                        placement.check = CacheFileRange.check($0)
                    }
                    placement.escaped = true
                }
            }
        }
        placement.length = position - offset
        append(UInt8(ascii: "\""))
        return placement
    }

    func appendInteger(_ value: Int64) {
        reserve(20)
        var magnitude = value.magnitude
        if value < 0 {
            buffer[count] = UInt8(ascii: "-")
            count += 1
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch
        let written = withUnsafeMutableBytes(of: &digits) { scratch -> Int in
            var position = scratch.count
            repeat {
                position -= 1
                scratch[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            let length = scratch.count - position
            (buffer + count).update(
                from: scratch.baseAddress!.advanced(by: position).assumingMemoryBound(to: UInt8.self), count: length)
            return length
        }
        count += written
    }
}

/// Where a secret's JSON text was written in a document (see ``CacheFileRange``).
struct SecretPlacement {
    var offset: Int
    var length: Int
    var escaped: Bool
    var check: UInt64

    /// Whether the store keeps the secret as this place (``TokenStore/place(in:_:)``) rather than
    /// as text: a place would not save memory for a short one.
    var isKeptInFile: Bool {
        SecretSpan.keepsInFile(secretLength: length)
    }
}
