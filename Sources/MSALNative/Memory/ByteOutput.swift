/// An output buffer for the cache writer: either collects the whole document in memory, or
/// hands full chunks to a sink (a file descriptor) so a large cache is written with a small,
/// fixed buffer. Its storage is raw memory, which is why it lives here; its API takes and gives
/// bytes only as spans and arrays.
package final class ByteOutput {
    @usableFromInline var buffer: UnsafeMutablePointer<UInt8>
    @usableFromInline var capacity: Int
    @usableFromInline var length = 0
    /// Bytes already handed to the sink.
    package private(set) var flushed = 0
    /// Receives each full chunk with its document offset.
    @usableFromInline let sink: ((Span<UInt8>, Int) throws -> Void)?
    /// The first error the sink threw; later writes are dropped.
    package private(set) var sinkError: (any Error)?

    /// A buffer that keeps everything in memory (``bytes``).
    package init(capacity: Int = 1 << 16) {
        self.capacity = max(capacity, 64)
        buffer = .allocate(capacity: self.capacity)
        sink = nil
    }

    /// A buffer that passes each full chunk of `chunkSize` bytes to `sink`, with the chunk's
    /// document offset (the first one's is `start`, where the document part written begins);
    /// call ``finish()``.
    package init(chunkSize: Int, startingAt start: Int = 0, sink: @escaping (Span<UInt8>, Int) throws -> Void) {
        capacity = max(chunkSize, 4096)
        buffer = .allocate(capacity: capacity)
        self.sink = sink
        flushed = start
    }

    deinit {
        buffer.deallocate()
    }

    /// Bytes in the buffer (not yet handed to the sink).
    package var count: Int { length }

    /// The document offset of the next byte written.
    @inlinable
    package var position: Int { flushed + length }

    /// Everything written, for an in-memory buffer.
    package var bytes: [UInt8] {
        Array(UnsafeBufferPointer(start: buffer, count: length))
    }

    /// Calls `body` with the bytes written from document offset `start` on, while they are all
    /// still in the buffer; `nil` (without calling it) when they are not.
    package func withBuffered<Result>(from start: Int, _ body: (Span<UInt8>) -> Result) -> Result? {
        guard start >= flushed, start <= position else { return nil }
        return body(UnsafeBufferPointer(start: buffer + (start - flushed), count: position - start).span)
    }

    /// Passes what is buffered to the sink; throws the sink's first error.
    package func finish() throws {
        flush()
        if let sinkError { throw sinkError }
    }

    @usableFromInline
    func flush() {
        guard let sink, length > 0 else { return }
        if sinkError == nil {
            do {
                try sink(UnsafeBufferPointer(start: buffer, count: length).span, flushed)
            } catch {
                sinkError = error
            }
        }
        flushed += length
        length = 0
    }

    @inlinable @inline(__always)
    func reserve(_ needed: Int) {
        if length + needed <= capacity { return }
        grow(needed)
    }

    @usableFromInline
    func grow(_ needed: Int) {
        if sink != nil {
            flush()
            if needed <= capacity { return }
        }
        var newCapacity = capacity * 2
        while newCapacity < length + needed { newCapacity *= 2 }
        let newBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBuffer.update(from: buffer, count: length)
        buffer.deallocate()
        buffer = newBuffer
        capacity = newCapacity
    }

    @inlinable @inline(__always)
    package func append(_ byte: UInt8) {
        reserve(1)
        buffer[length] = byte
        length += 1
    }

    @inlinable @inline(__always)
    package func append(_ bytes: Span<UInt8>) {
        guard !bytes.isEmpty else { return }
        reserve(bytes.count)
        bytes.withUnsafeBufferPointer { source in
            (buffer + length).update(from: source.baseAddress!, count: source.count)
        }
        length += bytes.count
    }

    @inlinable @inline(__always)
    package func append(_ literal: StaticString) {
        literal.withBytes { append($0) }
    }

    /// Appends the bytes of `string` as they are (no quotes, no escaping).
    package func appendRaw(_ string: String) {
        string.withUTF8Span { append($0) }
    }

    /// Appends `bytes`, which a large run of hands to the sink as they are, without copying them
    /// into the buffer first (what is buffered goes first); a small one is buffered.
    package func appendPassingThrough(_ bytes: Span<UInt8>) {
        guard let sink, bytes.count >= Self.passThroughBytes else {
            append(bytes)
            return
        }
        flush()
        if sinkError == nil {
            do {
                try sink(bytes, flushed)
            } catch {
                sinkError = error
            }
        }
        flushed += bytes.count
    }

    /// Runs shorter than this are copied into the buffer (a system call each would cost more).
    package static let passThroughBytes = 1 << 14

    /// Appends the decimal digits of `value` (with a `-` when negative).
    package func appendInteger(_ value: Int64) {
        reserve(20)
        var magnitude = value.magnitude
        if value < 0 {
            buffer[length] = UInt8(ascii: "-")
            length += 1
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch
        let written = withUnsafeMutableBytes(of: &digits) { scratch -> Int in
            var position = scratch.count
            repeat {
                position -= 1
                scratch[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            let count = scratch.count - position
            (buffer + length).update(
                from: scratch.baseAddress!.advanced(by: position).assumingMemoryBound(to: UInt8.self), count: count)
            return count
        }
        length += written
    }
}
