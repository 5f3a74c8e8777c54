/// A fast 64-bit digest of bytes, for the token cache's checks that a file still holds what was
/// read from it (four multiply-xor lanes over 8-byte words, mixed at the end: 0.7 ms per 10 MB
/// here, a quarter less than mixing at every step). Each step is a bijection of its lane, so a
/// change of any word changes that lane, and the length is part of the digest. Not a defence
/// against chosen collisions. It runs over most bytes of a cache file at every load and save, so
/// it reads them through a pointer, without a bounds check per word.
package enum ByteDigest {
    package static func digest(_ bytes: Span<UInt8>) -> UInt64 {
        bytes.withUnsafeBytes { raw in
            let count = raw.count
            var a: UInt64 = 0x243F_6A88_85A3_08D3 ^ UInt64(count)
            var b: UInt64 = 0x1319_8A2E_0370_7344
            var c: UInt64 = 0xA409_3822_299F_31D0
            var d: UInt64 = 0x082E_FA98_EC4E_6C89
            var index = 0
            if let base = raw.baseAddress {
                while index + 32 <= count {
                    a = (a ^ word(base, index)) &* 0x9E37_79B9_7F4A_7C15
                    b = (b ^ word(base, index + 8)) &* 0xC2B2_AE3D_27D4_EB4F
                    c = (c ^ word(base, index + 16)) &* 0x1656_67B1_9E37_79F9
                    d = (d ^ word(base, index + 24)) &* 0x85EB_CA77_C2B2_AE63
                    index += 32
                }
                a ^= a >> 29
                b ^= b >> 31
                c ^= c >> 27
                d ^= d >> 33
                while index + 8 <= count {
                    a = (a ^ word(base, index)) &* 0x9E37_79B9_7F4A_7C15
                    a ^= a >> 29
                    index += 8
                }
                while index < count {
                    a = (a ^ UInt64(base.load(fromByteOffset: index, as: UInt8.self))) &* 0x100_0000_01B3
                    index += 1
                }
            } else {
                a ^= a >> 29
                b ^= b >> 31
                c ^= c >> 27
                d ^= d >> 33
            }
            let mixed =
                (a ^ (b &* 0x9E37_79B9_7F4A_7C15)) ^ ((c ^ (d &* 0xC2B2_AE3D_27D4_EB4F)) &* 0x1656_67B1_9E37_79F9)
            return mixed ^ (mixed >> 32)
        }
    }

    @inline(__always)
    private static func word(_ base: UnsafeRawPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
}
