import Dispatch
import MSALNative

/// One version of the cache file, kept open after it was parsed so that secrets are read from it
/// when needed (``CacheSecret``) instead of being held in memory.
///
/// This library replaces the file only by rename, so the descriptor keeps reading the version that
/// was parsed even after a newer one took its name. Other writers may rewrite the file in place
/// (MSAL Python's msal-extensions truncates and rewrites it), so every read checks that the bytes
/// are still the ones parsed (delimiting quotes, length, a 64-bit digest of the text); when they are
/// not, the secret is unavailable and the caller sees a cache miss. ``TokenCache`` re-reads the
/// file whenever its fingerprint changes, so this only happens in the short race between that
/// check and the read.
final class CacheFileSnapshot: Sendable {
    /// The open file (closed off the caller's path when the snapshot goes: closing the last
    /// descriptor of a replaced file frees its blocks, tens of milliseconds for a large file).
    private let file: NativeFile
    /// Recently read secrets by offset: a silent call reads the same token again and again.
    private let recent = Locked([Int: String]())
    private static let recentLimit = 64

    /// Takes ownership of `file` (opened for reading, or the new file just written).
    init(file: NativeFile) {
        self.file = file
    }

    /// Whether `other` reads the same version of the file.
    func isSameFile(as other: CacheFileSnapshot) -> Bool {
        self === other
    }

    deinit {
        let file = file
        DispatchQueue.global(qos: .utility).async { withExtendedLifetime(file) {} }
    }

    /// The file's size now, or 0 when it cannot be told.
    var size: Int {
        (try? file.status()).map { Int($0.size) } ?? 0
    }

    /// Up to `count` bytes at `offset` (fewer at the end of the file; none when it cannot be read).
    func bytes(at offset: Int, count: Int) -> [UInt8] {
        (try? file.read(at: offset, count: count)) ?? []
    }

    /// Reads the bytes at `offset` into `buffer[range]`; the number read (short at the end of
    /// file, none when it cannot be read).
    func read(into buffer: inout [UInt8], _ range: Range<Int>, offset: Int) -> Int {
        (try? file.read(at: offset, into: &buffer, range)) ?? 0
    }

    /// The decoded text of `range`, or `nil` (logged) when the file no longer holds it.
    func text(of range: CacheFileRange) -> String? {
        if let text = recent.withLock({ $0[range.offset] }) { return text }
        let count = Int(range.length) + 2
        let bytes = self.bytes(at: range.offset - 1, count: count)
        guard Self.holds(bytes.span, range) else {
            Log.warning("Token cache: the cache file changed underneath this process; a token is treated as absent.")
            return nil
        }
        let text =
            range.escaped
            ? JSONStringEscapes.unescape(bytes.span.extracting(1..<(count - 1)))
            : String(decoding: bytes[1..<(count - 1)], as: UTF8.self)
        if let text {
            recent.withLock { recent in
                if recent.count >= Self.recentLimit { recent.removeAll(keepingCapacity: true) }
                recent[range.offset] = text
            }
        }
        return text
    }

    /// Whether `bytes` (read from one byte before the range to one after) are the quoted text
    /// the range was made from.
    static func holds(_ bytes: Span<UInt8>, _ range: CacheFileRange) -> Bool {
        holds(bytes, length: range.length, check: range.check)
    }

    /// Whether `bytes` are a quoted text of `length` bytes (between the quotes) whose check is `check`.
    static func holds(_ bytes: Span<UInt8>, length: Int32, check: UInt64) -> Bool {
        let count = Int(length) + 2
        guard bytes.count == count, bytes[0] == UInt8(ascii: "\""), bytes[count - 1] == UInt8(ascii: "\"") else {
            return false
        }
        return CacheFileRange.check(bytes.extracting(1..<(count - 1))) == check
    }
}

/// Copies secrets held as file ranges, and entries unchanged since they were read
/// (``EntryOrigin``), into a document being written, checking each, reading the old file
/// forward through one window (the entities of a section are in file order), so a save does not
/// make a system call per secret nor map the file.
final class CacheSecretCopier {
    private let capacity: Int
    /// The window: `count` bytes of `file` from offset `start` (its allocation is `capacity`).
    private var window: [UInt8]
    private var file: CacheFileSnapshot?
    private var start = 0
    private var count = 0
    /// Set when a range no longer holds what was parsed: the document must not be used.
    private(set) var failed = false

    init(windowSize: Int = 1 << 20) {
        capacity = windowSize
        window = [UInt8](repeating: 0, count: windowSize)
    }

    /// Records that a secret could not be copied: the document must not be used.
    func recordFailure() {
        failed = true
    }

    /// Calls `body` with the checked JSON text of `range` (without quotes), or records a failure.
    func withText(_ range: CacheFileRange, _ body: (Span<UInt8>) -> Void) {
        withBytes(range.file, from: range.offset - 1, count: Int(range.length) + 2) { bytes in
            deliver(bytes, range, body)
        }
    }

    /// Appends to `output` the entry at `place` in `file`, when the file still holds the bytes it
    /// was read from there (their check, and the check of `secret`, the place of the token's
    /// secret in `file`); returns where the entry and its secret went, or `nil` (nothing
    /// appended) when the entry is to be written from its fields.
    func copyEntry(
        _ place: EntryPlace, secret: SecretSpan?, from file: CacheFileSnapshot, into output: ByteOutput
    ) -> EntryPlacement? {
        let length = Int(place.length)
        guard length >= 2 else { return nil }
        return withBytes(file, from: place.offset, count: length) { bytes -> EntryPlacement? in
            let offset = output.position
            guard let placement = Self.verified(bytes, place, secret: secret, at: offset) else { return nil }
            output.append(bytes)
            return placement
        }
    }

    /// Copies into `output` the entries of `origins` from `first` on (before `end`) that lie one
    /// after another in `file`, as this library writes them (each after the first preceded by
    /// `,\n`, which is also checked), each checked as ``copyEntry(_:secret:from:into:)`` checks
    /// one. The checked bytes go from the window to `output` as one run, not entry by entry.
    /// Stops at the first entry that is not next in the file, not what was read, or larger than
    /// the window. Appends the placements of the entries copied to `placements` when `placing`;
    /// returns how many were copied (none: nothing appended).
    func copyRun(
        _ origins: [EntryOrigin], from first: Int, to end: Int, file: CacheFileSnapshot, into output: ByteOutput,
        placing: Bool, placements: inout [EntryPlacement]
    ) -> Int {
        var index = first
        // The checked bytes not yet appended, from `pending` (a file offset in the window) to
        // `checkedEnd`; they go to `output` from its current position.
        var pending: Int?
        var checkedEnd = 0
        func appendPending() {
            guard let from = pending else { return }
            let window = self.window  // a reference to the same bytes, for a span of them
            output.appendPassingThrough(window.span.extracting((from - start)..<(checkedEnd - start)))
            pending = nil
        }
        while index < end, index < origins.count, let place = origins[index].entry {
            let length = Int(place.length)
            if index > first && place.offset != checkedEnd + 2 { break }
            let from = index > first ? checkedEnd : place.offset
            let entryEnd = place.offset + length
            guard length >= 2, entryEnd - from <= capacity else { break }
            if self.file.map({ !$0.isSameFile(as: file) }) ?? true || from < start || entryEnd > start + count {
                appendPending()
                self.file = file
                start = from
                count = file.read(into: &window, 0..<capacity, offset: from)
                if entryEnd > start + count { break }
            }
            if index > first
                && (window[from - start] != UInt8(ascii: ",") || window[from - start + 1] != UInt8(ascii: "\n"))
            {
                break
            }
            let runStart = pending ?? from
            let offset = output.position + (place.offset - runStart)
            let entryStart = place.offset - start
            guard
                let placement = Self.verified(
                    window.span.extracting(entryStart..<(entryStart + length)), place, secret: origins[index].secret,
                    at: offset)
            else {
                break
            }
            pending = runStart
            checkedEnd = entryEnd
            if placing { placements.append(placement) }
            index += 1
        }
        appendPending()
        return index - first
    }

    /// Where the entry `bytes` (read from the file at `place`) and its secret go when copied to
    /// output offset `offset`, when they are still what was read (delimiters, the entry's check,
    /// the secret's); `nil` when the entry is to be written from its fields.
    private static func verified(
        _ bytes: Span<UInt8>, _ place: EntryPlace, secret: SecretSpan?, at offset: Int
    ) -> EntryPlacement? {
        let length = Int(place.length)
        // The secret's text within the entry, between its quotes.
        var inside: Range<Int>?
        if let secret {
            let start = secret.offset - place.offset
            guard start >= 1, start + Int(secret.length) < length else { return nil }
            inside = start..<(start + Int(secret.length))
        }
        guard bytes.count == length, bytes[0] == UInt8(ascii: "\""), bytes[length - 1] == UInt8(ascii: "}"),
            EntryPlace.check(bytes, secret: inside) == place.check
        else { return nil }
        var secretPlacement: SecretPlacement?
        if let inside, let secret {
            let quoted = bytes.extracting((inside.lowerBound - 1)..<(inside.upperBound + 1))
            guard CacheFileSnapshot.holds(quoted, length: secret.length, check: secret.check) else { return nil }
            secretPlacement = SecretPlacement(
                offset: offset + inside.lowerBound, length: inside.count, escaped: secret.escaped,
                check: secret.check)
        }
        return EntryPlacement(
            entry: EntryPlace(offset: offset, check: place.check, length: place.length), secret: secretPlacement)
    }

    /// Calls `body` with `count` bytes of `file` from `from` (fewer at the end of the file), read
    /// through the window when they fit in it.
    private func withBytes<Result>(
        _ file: CacheFileSnapshot, from: Int, count wanted: Int, _ body: (Span<UInt8>) -> Result
    ) -> Result {
        if wanted > capacity {
            return body(file.bytes(at: from, count: wanted).span)
        }
        if self.file.map({ !$0.isSameFile(as: file) }) ?? true || from < start || from + wanted > start + count {
            self.file = file
            start = from
            count = file.read(into: &window, 0..<capacity, offset: from)
        }
        let first = from - start
        let window = self.window  // a reference to the same bytes, for a span of them
        return body(window.span.extracting(first..<(first + max(0, min(wanted, start + count - from)))))
    }

    private func deliver(
        _ bytes: Span<UInt8>, _ range: CacheFileRange, _ body: (Span<UInt8>) -> Void
    ) {
        guard CacheFileSnapshot.holds(bytes, range) else {
            if !failed {
                Log.warning("Token cache: the cache file changed underneath this process while it was being saved.")
            }
            failed = true
            return
        }
        body(bytes.extracting(1..<(bytes.count - 1)))
    }
}
