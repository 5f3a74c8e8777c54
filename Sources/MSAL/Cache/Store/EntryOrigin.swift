/// What the store keeps beside one of its entities about the cache file it was read from or last
/// saved to (``CacheContents/sourceFile``): where the entity's entry lies there, so that a save
/// copies it byte for byte while the entity is unchanged, and where its secret lies there, when the
/// secret is not held in memory (the entity's `secret` is then empty).
///
/// Kept by ``TokenStore`` in ``CacheContents/origins``, parallel to the entity arrays; the store's
/// own write operations (upsert, remove, replace) clear it, so a changed entity is always written
/// from its fields. The entities themselves are plain values.
struct EntryOrigin: Sendable {
    /// The entry's place, or `nil` when the entity is to be written from its fields.
    var entry: EntryPlace?
    /// The secret's place, or `nil` when the entity holds its secret.
    var secret: SecretSpan?
    /// ``CacheKeyBuilder/keyHash`` of the key the entry was read under (which a save writes while
    /// the entity is unchanged), when the reader had it at hand; settles keys at load cheaply.
    var keyHash: Int?

    static let none = EntryOrigin()
}

/// Where an entry (its key, the colon and its object: `"key":{…}`) lies in a cache file.
struct EntryPlace: Sendable, Equatable {
    /// Byte offset of the key's opening quote.
    var offset: Int
    /// ``EntryPlace/check(_:secret:)`` of the entry's bytes.
    var check: UInt64
    /// Bytes up to and including the object's closing brace.
    var length: Int32

    /// The check of an entry's bytes. `secret` (a range of `entry`) is left out when the store
    /// keeps the secret as a place in the same file: that text has its own check
    /// (``CacheFileRange/check(_:)``), verified whenever it is copied, and is not read twice.
    static func check(_ entry: Span<UInt8>, secret: Range<Int>?) -> UInt64 {
        guard let secret, secret.lowerBound >= 0, secret.upperBound <= entry.count else {
            return CacheFileRange.check(entry)
        }
        let before = CacheFileRange.check(entry.extracting(..<secret.lowerBound))
        let after = CacheFileRange.check(entry.extracting(secret.upperBound...))
        // Which part is which matters (a different multiplier for each), and so does the place of
        // the split (the lengths are part of each check).
        return (before &* 0x9E37_79B9_7F4A_7C15) ^ (after &* 0xC2B2_AE3D_27D4_EB4F) ^ UInt64(secret.count)
    }
}

/// A secret's place in the store's source file: its JSON text between the quotes.
struct SecretSpan: Sendable, Equatable {
    var offset: Int
    var length: Int32
    var escaped: Bool
    var check: UInt64

    /// The range of `file` it describes.
    func range(in file: CacheFileSnapshot) -> CacheFileRange {
        CacheFileRange(file: file, offset: offset, length: length, escaped: escaped, check: check)
    }

    /// Shorter secrets are kept as text: a place in the file would not save memory.
    static let smallestKept = 32

    /// Whether a secret whose JSON text is `length` bytes is kept as its place in the file (when
    /// read from one, and after a save): the one rule for both, which the entry checks rely on
    /// (``EntryPlace/check(_:secret:)`` leaves out exactly the secrets kept so).
    static func keepsInFile(secretLength length: Int) -> Bool {
        length >= smallestKept && length <= Int32.max
    }
}

/// The origins of the entities of each kind, parallel to ``CacheContents``' arrays. An array
/// shorter than its entities' (contents built in memory) means no origin for the rest.
struct CacheOrigins: Sendable {
    var accessTokens: [EntryOrigin] = []
    var refreshTokens: [EntryOrigin] = []
    var idTokens: [EntryOrigin] = []
    var accounts: [EntryOrigin] = []
    var appMetadata: [EntryOrigin] = []
}

extension Array where Element == EntryOrigin {
    /// The origin at `index`, or ``EntryOrigin/none``.
    subscript(originAt index: Int) -> EntryOrigin {
        indices.contains(index) ? self[index] : .none
    }

    /// Pads with ``EntryOrigin/none`` to `count` elements.
    mutating func pad(to count: Int) {
        if self.count < count { append(contentsOf: repeatElement(.none, count: count - self.count)) }
    }
}
