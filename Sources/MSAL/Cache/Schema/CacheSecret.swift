/// A token's secret (`secret` of an access, refresh or id token): either text in memory, or the
/// place of its JSON text in a version of the cache file, read on demand.
///
/// Secrets are most of a cache file (about 3.5 KB of every account's 6 KB), and a silent call
/// reads one or two of them; keeping only their places lets a 10,000-account cache load without
/// copying 35 MB into memory. A saved file's secrets are copied from the old file to the new
/// one without being decoded (see ``CacheSecretCopier``).
struct CacheSecret: Sendable, Equatable {
    enum Storage: Sendable {
        case text(String)
        case file(CacheFileRange)
    }

    var storage: Storage

    init(_ text: String) {
        storage = .text(text)
    }

    init(_ range: CacheFileRange) {
        storage = .file(range)
    }

    /// The secret; empty when it is in a file that changed underneath (logged; see
    /// ``CacheFileSnapshot``). Queries on the silent path use ``resolved`` and treat that as a miss.
    var text: String {
        switch storage {
        case .text(let text): return text
        case .file(let range): return range.file.text(of: range) ?? ""
        }
    }

    /// The secret, or `nil` when its file changed underneath.
    var resolved: String? {
        switch storage {
        case .text(let text): return text
        case .file(let range): return range.file.text(of: range)
        }
    }

    static func == (lhs: CacheSecret, rhs: CacheSecret) -> Bool {
        if case .file(let a) = lhs.storage, case .file(let b) = rhs.storage, a.file === b.file, a.offset == b.offset,
            a.length == b.length
        {
            return true
        }
        return lhs.resolved == rhs.resolved
    }
}

/// Where a string's JSON text (between its quotes, escapes as written) lies in a cache file, with
/// what is needed to check that the file still holds it.
struct CacheFileRange: Sendable {
    let file: CacheFileSnapshot
    /// Byte offset of the first character after the opening quote.
    let offset: Int
    let length: Int32
    /// Whether the text contains escapes (decoded when read).
    let escaped: Bool
    /// ``CacheFileRange/check(_:)`` of the text, compared on every read.
    let check: UInt64

    /// A digest of the text's first and last eight bytes and its length: enough to tell that a
    /// file rewritten in place by another library no longer holds the token (tokens end in a
    /// random signature), at the cost of two loads.
    static func check(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        guard let base = bytes.baseAddress, bytes.count >= 8 else {
            var value = UInt64(bytes.count)
            for byte in bytes { value = value &* 0x100_0000_01B3 ^ UInt64(byte) }
            return value
        }
        let raw = UnsafeRawPointer(base)
        let head = raw.loadUnaligned(as: UInt64.self)
        let tail = raw.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self)
        return (head &* 0x9E37_79B9_7F4A_7C15) ^ tail ^ UInt64(bytes.count) << 48
    }
}
