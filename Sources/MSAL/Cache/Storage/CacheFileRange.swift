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
        let count = bytes.count
        var a: UInt64 = 0x243F_6A88_85A3_08D3 ^ UInt64(count)
        var b: UInt64 = 0x1319_8A2E_0370_7344
        var c: UInt64 = 0xA409_3822_299F_31D0
        var d: UInt64 = 0x082E_FA98_EC4E_6C89
        var index = 0
        while index + 32 <= count {
            // Each step is a bijection of the lane, so a change of any word changes its lane;
            // the lanes are mixed once, at the end.
            a = (a ^ bytes.littleEndianWord(at: index)) &* 0x9E37_79B9_7F4A_7C15
            b = (b ^ bytes.littleEndianWord(at: index + 8)) &* 0xC2B2_AE3D_27D4_EB4F
            c = (c ^ bytes.littleEndianWord(at: index + 16)) &* 0x1656_67B1_9E37_79F9
            d = (d ^ bytes.littleEndianWord(at: index + 24)) &* 0x85EB_CA77_C2B2_AE63
            index += 32
        }
        a ^= a >> 29
        b ^= b >> 31
        c ^= c >> 27
        d ^= d >> 33
        while index + 8 <= count {
            a = (a ^ bytes.littleEndianWord(at: index)) &* 0x9E37_79B9_7F4A_7C15
            a ^= a >> 29
            index += 8
        }
        while index < count {
            a = (a ^ UInt64(bytes[index])) &* 0x100_0000_01B3
            index += 1
        }
        let mixed = (a ^ (b &* 0x9E37_79B9_7F4A_7C15)) ^ ((c ^ (d &* 0xC2B2_AE3D_27D4_EB4F)) &* 0x1656_67B1_9E37_79F9)
        return mixed ^ (mixed >> 32)
    }
}
