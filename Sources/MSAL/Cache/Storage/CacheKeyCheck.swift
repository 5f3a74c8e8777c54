/// Whether bytes handed over as the cache's AES-256 key (`encryptionKey`, a key store's payload, a
/// systemd credential) can be one: 32 random bytes hold about 30 distinct values, and fewer than
/// ``minimumDistinctBytes`` (an unset buffer, a placeholder) would encrypt in name only.
enum CacheKeyCheck {
    /// The bytes of an AES-256 key.
    static let keyBytes = 32
    /// The fewest distinct byte values a key of 32 bytes may hold. For 32 random bytes, fewer than
    /// 16 has a probability below 10^-12.
    static let minimumDistinctBytes = 16

    /// Why `key` is no usable key, in words for a message ("it has 31 bytes, not 32 (AES-256)"),
    /// or `nil` when it can be one. Never quotes the key, except the one value of a key made of
    /// a single repeated byte.
    static func problem(_ key: [UInt8]) -> String? {
        guard key.count == keyBytes else { return "it has \(key.count) bytes, not 32 (AES-256)" }
        let distinct = Set(key).count
        if distinct == 1 {
            let value = String(key[0], radix: 16)
            return "every byte is 0x\(value.count == 1 ? "0" + value : value): that is no key (an unset buffer or a "
                + "placeholder), make 32 random bytes (openssl rand -base64 32)"
        }
        if distinct < minimumDistinctBytes {
            return "only \(distinct) distinct byte values in its 32 bytes (random bytes have about 30): it was not "
                + "made at random, make 32 random bytes (openssl rand -base64 32)"
        }
        return nil
    }
}
