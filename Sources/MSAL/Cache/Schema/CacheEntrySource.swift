/// Where an entity's entry (its key, the colon and its object: `"key":{…}`) lies in the cache
/// file its store was read from or last saved to (``CacheContents/sourceFile``), while the entity
/// is unchanged since.
///
/// A save copies such an entry as it is in that file, after checking that the file still holds
/// it, instead of writing it again field by field: a store of 10,000 accounts is then rewritten
/// at about the speed of copying its file. Every change to one of the entity's fields forgets the
/// place (the entities' property observers), so a changed entity is always written from its
/// fields.
///
/// Not part of an entity's meaning: two entities with the same fields are equal wherever they
/// were read from.
struct CacheEntrySource: Sendable, Equatable {
    /// The entry's place, or `nil` when the entity is to be written from its fields.
    var place: Place?

    struct Place: Sendable, Equatable {
        /// Byte offset of the key's opening quote.
        var offset: Int
        /// ``CacheEntrySource/check(_:secret:)`` of the entry's bytes.
        var check: UInt64
        /// Bytes up to and including the object's closing brace.
        var length: Int32
    }

    init(_ place: Place? = nil) {
        self.place = place
    }

    static func == (lhs: CacheEntrySource, rhs: CacheEntrySource) -> Bool { true }

    /// The check of an entry's bytes. `secret` (a range of `entry`) is left out when the entity
    /// holds its secret as a place in the same file: that text has its own check
    /// (``CacheFileRange/check``), verified whenever it is copied, and is not read twice.
    static func check(_ entry: UnsafeBufferPointer<UInt8>, secret: Range<Int>?) -> UInt64 {
        guard let secret, secret.lowerBound >= 0, secret.upperBound <= entry.count else {
            return CacheFileRange.check(entry)
        }
        let before = CacheFileRange.check(UnsafeBufferPointer(rebasing: entry[..<secret.lowerBound]))
        let after = CacheFileRange.check(UnsafeBufferPointer(rebasing: entry[secret.upperBound...]))
        // Which part is which matters (a different multiplier for each), and so does the place of
        // the split (the lengths are part of each check).
        return (before &* 0x9E37_79B9_7F4A_7C15) ^ (after &* 0xC2B2_AE3D_27D4_EB4F) ^ UInt64(secret.count)
    }
}
