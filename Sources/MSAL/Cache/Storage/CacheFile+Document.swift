import MSALNative

/// The document side of the cache file: reading a version of it into contents, writing contents
/// into a new file. ``CacheFile`` opens, locks, replaces and quarantines; these only parse and
/// serialise.
extension CacheFile {
    /// Bytes read and parsed at a time (small enough to stay in the processor's cache between the
    /// copy and the parse), so a large file never sits in memory beside its parsed form.
    static let windowBytes = 1 << 18

    /// Bytes of the old file read at a time by a save, checked, and handed on to the new file as
    /// they are (measured with 10,000 accounts here: 64 KiB 51 ms of CPU, 256 KiB 40 ms, 1 MiB
    /// 33 ms, 4 MiB 37 ms).
    static let copyWindowBytes = 1 << 20

    /// From this size of the file a save replaces, the new file's space is allocated before it is
    /// written (``CopySpace/reserve(_:for:)``: measured with 10,000 accounts, 61 MB, here: 25-27 ms
    /// of CPU a save instead of 36-39 ms). Smaller files are written as they come.
    static let reserveFromBytes = 1 << 20

    /// Bytes handed to the kernel at a time (small enough to stay in the processor's cache
    /// between the copy from the old file and the write).
    static let chunkSize = 1 << 18

    /// Reads the document of `snapshot` (a regular file of `size` bytes when opened). Secrets are
    /// kept as places in it. Throws ``CacheDocumentCodec/Corrupt`` when it is not a cache document.
    func readDocument(_ snapshot: CacheFileSnapshot, size: Int) throws -> CacheContents {
        var reader = CacheDocumentReader(snapshot: snapshot)
        var capacity = Self.windowBytes
        var buffer = [UInt8](repeating: 0, count: capacity)
        var filled = 0
        var origin = 0
        var atEnd = false
        var sawContent = false
        while true {
            while !atEnd && filled < capacity {
                let got = snapshot.read(into: &buffer, filled..<capacity, offset: origin + filled)
                if got == 0 { atEnd = true } else { filled += got }
            }
            if !sawContent {
                if CacheDocumentCodec.isBlank(buffer[..<filled]) {
                    if atEnd { return CacheContents() }
                } else {
                    sawContent = true
                }
            }
            let consumed: Int
            do throws(JSONScanError) {
                consumed = try reader.consume(buffer, count: filled, origin: origin, isFinal: atEnd)
            } catch .malformed(let reason, let offset) {
                throw CacheDocumentCodec.Corrupt(reason: reason, offset: offset)
            } catch {
                throw CacheDocumentCodec.Corrupt(reason: "truncated", offset: origin + filled)
            }
            if reader.isDone && atEnd { return reader.takeContents() }
            if atEnd {
                throw CacheDocumentCodec.Corrupt(
                    reason: "the document ends too early (truncated)", offset: origin + filled)
            }
            // Keep the unconsumed tail; grow when a single entry fills the whole window.
            if consumed == 0 && filled == capacity {
                capacity *= 2
                buffer += [UInt8](repeating: 0, count: capacity - buffer.count)
            } else {
                // One move of the tail to the front (element-wise array edits cost seconds per
                // large file in a debug build).
                buffer.moveToFront(consumed..<filled)
                filled -= consumed
            }
            origin += consumed
        }
    }

    /// Writes the plain document into `file` (an empty file just created at `temporary`), copying
    /// unchanged entries and secrets from the file the contents were read from. Returns where each
    /// entry went (``TokenStore/place(in:_:)``).
    func writeDocument(_ contents: CacheContents, to file: NativeFile, path temporary: String) throws
        -> CacheDocumentWriter.Placements
    {
        let output = ByteOutput(chunkSize: Self.chunkSize) { chunk, offset in
            do throws(FileError) {
                try file.write(chunk, at: offset)
            } catch {
                throw CacheStorageError.io("write a temporary file", path: temporary, errno: error.code)
            }
        }
        let copier = CacheSecretCopier(windowSize: Self.copyWindowBytes)
        // A large file gets the old one's size up front, and is cut to the document's end.
        let reserved = contents.sourceFile?.size ?? 0
        let didReserve = reserved >= Self.reserveFromBytes && CopySpace.reserve(reserved, for: file)
        let placements = CacheDocumentWriter.write(contents, to: output, copier: copier)
        if copier.failed { throw CacheStorageError.changedUnderneath(path: path) }
        try output.finish()
        if didReserve && output.position < reserved {
            do throws(FileError) {
                try file.truncate(to: output.position)
            } catch {
                throw CacheStorageError.io("write a temporary file", path: temporary, errno: error.code)
            }
        }
        return placements
    }
}
