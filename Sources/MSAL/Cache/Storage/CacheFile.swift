import Foundation
import Glibc
import MSALNative

/// The cache file on disk: windowed reading, atomic replacement, quarantine of corrupt files.
/// Callers hold the ``FileLock`` around every read-modify-write.
struct CacheFile: Sendable {
    let path: String
    /// Whether the folder is the library's own (kept at mode 0700).
    let ownsFolder: Bool
    let encryptionKey: [UInt8]?
    let durable: Bool
    /// When and how large files are read on two threads.
    var splitRead = SplitReadTuning()
    /// Documents with at least this many bytes of entries copied from the file they were read
    /// from are written on two threads.
    var twoWritersFrom = 4 << 20

    var lockPath: String { path + ".lock" }
    var folder: String { (path as NSString).deletingLastPathComponent }

    /// Creates the folder (mode 0700) when missing; tightens the library's own folder to 0700.
    func prepareFolder() throws {
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) {
            try createFolders(folder)
        }
        if ownsFolder { chmod(folder, 0o700) }
    }

    private func createFolders(_ path: String) throws {
        if path.isEmpty || path == "/" || FileManager.default.fileExists(atPath: path) { return }
        try createFolders((path as NSString).deletingLastPathComponent)
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw CacheStorageError.io("create the folder", path: path, errno: errno)
        }
    }

    /// Reads the file. Missing: empty. Not JSON or truncated: moved aside as
    /// `<file>.corrupt-<epoch seconds>`, an error logged, empty. Encrypted without the right
    /// key: throws, the file untouched.
    func load() throws -> (contents: CacheContents, fingerprint: FileFingerprint?) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return (CacheContents(), nil) }
            throw CacheStorageError.io("open the cache file", path: path, errno: errno)
        }
        // A plain file stays open as the snapshot its secrets are read from (owned by the
        // entities that refer to it); otherwise it is closed here.
        var snapshot: CacheFileSnapshot?
        defer { if snapshot == nil { close(descriptor) } }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw CacheStorageError.io("stat the cache file", path: path, errno: errno)
        }
        let fingerprint = FileFingerprint(info)
        do {
            let contents = try read(descriptor, size: Int(info.st_size), snapshot: &snapshot)
            return (contents, fingerprint)
        } catch let corrupt as CacheDocumentCodec.Corrupt {
            quarantine(reason: corrupt)
            return (CacheContents(), nil)
        }
    }

    private func read(_ descriptor: Int32, size: Int, snapshot: inout CacheFileSnapshot?) throws -> CacheContents {
        // Peek at the start to tell an encrypted file from JSON.
        var head = [UInt8](repeating: 0, count: CacheEncryption.header.count)
        let headCount = try readFully(descriptor, into: &head, offset: 0)
        if CacheEncryption.isEncrypted(head.prefix(headCount)) || encryptionKey != nil {
            var whole = [UInt8](repeating: 0, count: max(size, headCount))
            let count = try readFully(descriptor, into: &whole, offset: 0)
            whole.removeSubrange(count...)
            if CacheEncryption.isEncrypted(whole) {
                guard let key = encryptionKey, let plaintext = CacheEncryption.open(whole, key: key) else {
                    throw CacheStorageError.cannotDecrypt(path: path, keyConfigured: encryptionKey != nil)
                }
                return try CacheDocumentCodec.decode(plaintext)
            }
            // With a key set, only a plain JSON document is accepted (and re-encrypted later); anything
            // else may be an encrypted file with a damaged header, so it is left untouched.
            guard
                whole.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }).map({
                    $0 == UInt8(ascii: "{")
                }) ?? true
            else {
                throw CacheStorageError.cannotDecrypt(path: path, keyConfigured: true)
            }
            Log.warning("Token cache: \(pii: path) is not encrypted; it is re-written encrypted on the next change.")
            return try CacheDocumentCodec.decode(whole)
        }
        let file = CacheFileSnapshot(descriptor: descriptor)
        snapshot = file
        return try readDocument(descriptor, size: size, snapshot: file)
    }

    /// Reads the document from `descriptor`: on two threads when it is at least
    /// ``SplitReadTuning/from`` bytes and a split is found in its middle, otherwise on this one.
    private func readDocument(_ descriptor: Int32, size: Int, snapshot: CacheFileSnapshot) throws -> CacheContents {
        if size >= splitRead.from, let split = try findSplit(descriptor, at: size / 2, before: size) {
            return try readSplit(descriptor, at: split, size: size, snapshot: snapshot)
        }
        var reader = CacheDocumentReader(snapshot: snapshot)
        return try feed(&reader, descriptor, from: 0) ?? CacheContents()
    }

    /// Feeds `reader` the file from `start` in windows of ``SplitReadTuning/windowBytes`` (small
    /// enough to stay in the processor's cache between the copy and the parse), so a large file
    /// never sits in memory beside its parsed form, until the document ends or the reader hands
    /// over. `beforeWindow` runs before each window is parsed, with the window's end; it may
    /// adjust the reader or throw to stop. `nil`: the file holds only whitespace.
    func feed(
        _ reader: inout CacheDocumentReader, _ descriptor: Int32, from start: Int,
        beforeWindow: (_ end: Int, _ reader: inout CacheDocumentReader) throws -> Void = { _, _ in }
    ) throws -> CacheContents? {
        var capacity = max(splitRead.windowBytes, 16)
        var buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        defer { buffer.deallocate() }
        var filled = 0
        var origin = start
        var atEnd = false
        var sawContent = start > 0
        while true {
            while !atEnd && filled < capacity {
                let count = pread(descriptor, buffer + filled, capacity - filled, off_t(origin + filled))
                if count < 0 {
                    if errno == EINTR { continue }
                    throw CacheStorageError.io("read the cache file", path: path, errno: errno)
                }
                if count == 0 { atEnd = true } else { filled += count }
            }
            let window = UnsafeRawBufferPointer(start: buffer, count: filled)
            if !sawContent {
                if CacheDocumentCodec.isBlank(window) {
                    if atEnd { return nil }
                } else {
                    sawContent = true
                }
            }
            try beforeWindow(origin + filled, &reader)
            let consumed: Int
            do {
                consumed = try reader.consume(window, origin: origin, isFinal: atEnd)
            } catch .malformed(let reason, let offset) {
                throw CacheDocumentCodec.Corrupt(reason: reason, offset: offset)
            } catch {
                throw CacheDocumentCodec.Corrupt(reason: "truncated", offset: origin + filled)
            }
            if reader.handedOver || (reader.isDone && atEnd) { return reader.takeContents() }
            if atEnd {
                throw CacheDocumentCodec.Corrupt(
                    reason: "the document ends too early (truncated)", offset: origin + filled)
            }
            // Keep the unconsumed tail; grow when a single entry fills the whole window.
            let remaining = filled - consumed
            if consumed == 0 && filled == capacity {
                capacity *= 2
                let larger = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
                larger.copyMemory(from: buffer, byteCount: filled)
                buffer.deallocate()
                buffer = larger
            } else {
                buffer.copyMemory(from: buffer + consumed, byteCount: remaining)
                filled = remaining
            }
            origin += consumed
        }
    }

    func readFully(_ descriptor: Int32, into bytes: inout [UInt8], offset: off_t) throws -> Int {
        var total = 0
        let wanted = bytes.count
        try bytes.withUnsafeMutableBytes { raw in
            while total < wanted {
                let count = pread(descriptor, raw.baseAddress! + total, wanted - total, offset + off_t(total))
                if count < 0 {
                    if errno == EINTR { continue }
                    throw CacheStorageError.io("read the cache file", path: path, errno: errno)
                }
                if count == 0 { break }
                total += count
            }
        }
        return total
    }

    /// Moves a corrupt file aside and logs an error; the cache goes on empty.
    private func quarantine(reason: CacheDocumentCodec.Corrupt) {
        var target = "\(path).corrupt-\(Int(Date().timeIntervalSince1970))"
        var suffix = 1
        while access(target, F_OK) == 0 {
            target = "\(path).corrupt-\(Int(Date().timeIntervalSince1970))-\(suffix)"
            suffix += 1
        }
        let moved = rename(path, target) == 0
        let outcome = moved ? "It was moved to" : "It could not be moved to"
        Log.error(
            "Token cache: \(pii: path) is not a valid cache document (\(reason.reason) at byte \(reason.offset)). \(outcome) \(pii: target); continuing with an empty cache."
        )
    }

    /// Replaces the file atomically: a temporary file in the same folder (mode 0600), written,
    /// fsynced, renamed over the file, and the folder fsynced. Returns the new fingerprint and,
    /// for a plain file, the new file as a snapshot with where each secret went in it, so the
    /// store can read its secrets and copy its entries from there (``TokenStore/place(in:_:)``).
    func save(_ contents: CacheContents) throws -> (
        fingerprint: FileFingerprint?, placed: (CacheFileSnapshot, CacheDocumentWriter.Placements)?
    ) {
        try prepareFolder()
        let temporary =
            "\(folder)/.\((path as NSString).lastPathComponent).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        // Read-write: after the rename this descriptor is the new file's snapshot.
        let descriptor = open(temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CacheStorageError.io("create a temporary file", path: temporary, errno: errno)
        }
        var owned = true
        defer {
            if owned { close(descriptor) }
        }
        var placements: CacheDocumentWriter.Placements?
        do {
            if let key = encryptionKey {
                let sealed = try CacheEncryption.seal(CacheDocumentCodec.encode(contents), key: key)
                try sealed.withUnsafeBytes { try Self.writeAll(descriptor, $0, at: 0, path: temporary) }
            } else {
                placements = try writeDocument(contents, to: descriptor, path: temporary)
            }
            if durable && fsync(descriptor) != 0 {
                throw CacheStorageError.io("fsync a temporary file", path: temporary, errno: errno)
            }
            guard rename(temporary, path) == 0 else {
                throw CacheStorageError.io("replace the cache file", path: path, errno: errno)
            }
        } catch {
            unlink(temporary)
            throw error
        }
        removeTemporariesOfDeadWriters()
        if durable {
            let folderDescriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if folderDescriptor >= 0 {
                fsync(folderDescriptor)
                close(folderDescriptor)
            }
        }
        // The fingerprint of the version written (even if another program replaced it since).
        var info = stat()
        let fingerprint = fstat(descriptor, &info) == 0 ? FileFingerprint(info) : FileFingerprint.of(path: path)
        guard let placements else { return (fingerprint, nil) }
        owned = false
        return (fingerprint, (CacheFileSnapshot(descriptor: descriptor), placements))
    }

    /// Paths whose folder was already swept by this process.
    private static let swept = Locked<Set<String>>([])

    /// Removes the temporary files a writer left when it died between creating one and renaming it
    /// (`kill -9`, a crash, power loss), once per process and cache file: a temporary file whose
    /// writer process no longer exists. Files of live processes are left alone.
    private func removeTemporariesOfDeadWriters() {
        let isFirst = Self.swept.withLock { $0.insert(path).inserted }
        guard isFirst, let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        let prefix = ".\((path as NSString).lastPathComponent).tmp-"
        for name in names where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count).prefix { $0 != "-" }), pid != getpid(),
                kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            unlink("\(folder)/\(name)")
        }
    }

    /// Writes the plain document to `descriptor` (an empty file): on two threads, each writing
    /// its half at its place, when the document is large and mostly copied from the file it was
    /// read from (the length of the first half is then known before it is written).
    private func writeDocument(_ contents: CacheContents, to descriptor: Int32, path temporary: String) throws
        -> CacheDocumentWriter.Placements
    {
        let chunkSize = Self.chunkSize
        if let split = CacheDocumentWriter.splitPoint(contents, minimumBytes: twoWritersFrom) {
            // The second half's offset: the first half's length, counted without reading any file.
            let counter = ByteOutput.counting()
            CacheDocumentWriter.write(
                contents, to: counter, copier: CacheSecretCopier(windowSize: 0), placing: false,
                part: CacheDocumentWriter.Cursor.start..<split)
            let offset = counter.position
            let writeSecond: @Sendable () -> Result<CacheDocumentWriter.Placements, any Error> = { [self] in
                Result {
                    try writePart(
                        contents, split..<CacheDocumentWriter.Cursor.end, at: offset, to: descriptor, path: temporary,
                        chunkSize: chunkSize)
                }
            }
            let (first, second) = alongside(writeSecond) {
                Result {
                    try writePart(
                        contents, CacheDocumentWriter.Cursor.start..<split, at: 0, to: descriptor, path: temporary,
                        chunkSize: chunkSize, endingAt: offset)
                }
            }
            do {
                var placements = try first.get()
                placements.append(try second.get())
                return placements
            } catch PartLengthMismatch.mismatch {
                // An entry of the first half was written from its fields (its bytes in the file
                // had changed): the halves overlap. Written again, whole, on this thread.
                guard ftruncate(descriptor, 0) == 0 else {
                    throw CacheStorageError.io("write a temporary file", path: temporary, errno: errno)
                }
            }
        }
        return try writePart(
            contents, CacheDocumentWriter.Cursor.start..<CacheDocumentWriter.Cursor.end, at: 0, to: descriptor,
            path: temporary, chunkSize: chunkSize)
    }

    /// Bytes handed to the kernel at a time (small enough to stay in the processor's cache
    /// between the copy from the old file and the write).
    static let chunkSize = 1 << 18

    private enum PartLengthMismatch: Error {
        case mismatch
    }

    /// Writes `part` of the document at document offset `offset` of `descriptor` (the temporary
    /// file at `temporary`). With `endingAt`, throws ``PartLengthMismatch/mismatch`` when the
    /// part does not end there.
    private func writePart(
        _ contents: CacheContents, _ part: Range<CacheDocumentWriter.Cursor>, at offset: Int, to descriptor: Int32,
        path temporary: String, chunkSize: Int, endingAt end: Int? = nil
    ) throws -> CacheDocumentWriter.Placements {
        let output = ByteOutput(chunkSize: chunkSize, startingAt: offset) { chunk, offset in
            try Self.writeAll(descriptor, chunk, at: offset, path: temporary)
        }
        let copier = CacheSecretCopier(windowSize: chunkSize)
        let placements = CacheDocumentWriter.write(contents, to: output, copier: copier, part: part)
        if copier.failed { throw CacheStorageError.changedUnderneath(path: path) }
        try output.finish()
        if let end, output.position != end { throw PartLengthMismatch.mismatch }
        return placements
    }

    private static func writeAll(_ descriptor: Int32, _ chunk: UnsafeRawBufferPointer, at offset: Int, path: String)
        throws
    {
        var written = 0
        while written < chunk.count {
            let count = pwrite(descriptor, chunk.baseAddress! + written, chunk.count - written, off_t(offset + written))
            if count < 0 {
                if errno == EINTR { continue }
                throw CacheStorageError.io("write a temporary file", path: path, errno: errno)
            }
            written += count
        }
    }
}
