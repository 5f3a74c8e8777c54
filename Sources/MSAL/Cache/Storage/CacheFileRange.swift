import MSALNative

/// Where a string's JSON text (between its quotes, escapes as written) lies in a cache file, with
/// what is needed to check that the file still holds it.
struct CacheFileRange: Sendable {
    let file: CacheFileSnapshot
    /// Byte offset of the first character after the opening quote.
    let offset: Int
    let length: Int32
    /// Whether the text contains escapes (decoded when read).
    let escaped: Bool
    /// ``CacheFileRange/check(_:)`` of the text, compared on every read and copy.
    let check: UInt64

    /// A 64-bit digest of the whole text (four multiply-xor lanes over 8-byte words, mixed at
    /// the end: 0.7 ms per 10 MB here, a quarter less than mixing at every step): a file
    /// rewritten in place by another program is detected even when it holds a token of the same
    /// length at the same place. Not a defence against chosen collisions (whoever can write the
    /// file chooses its tokens anyway). Never stored.
    static func check(_ bytes: Span<UInt8>) -> UInt64 {
        ByteDigest.digest(bytes)
    }
}
