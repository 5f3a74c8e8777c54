import MSALNative

/// The encrypted cache format: a versioned header, then AES-256-GCM's `nonce || ciphertext || tag`
/// of the JSON document, with the header authenticated as associated data (so the header cannot
/// be altered either). Nothing of the document is in the clear.
enum CacheEncryption {
    /// `MSALCACHE` + NUL, format version 1, algorithm 1 (AES-256-GCM).
    static let header: [UInt8] = Array("MSALCACHE".utf8) + [0, 1, 1]

    static func isEncrypted(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.starts(with: header.prefix(10))
    }

    static func seal(_ plaintext: [UInt8], key: [UInt8]) throws -> [UInt8] {
        header + (try AESGCM.seal(plaintext, key: SecureBytes(key), associatedData: header))
    }

    /// The document, or `nil` when the key does not open it (or it was modified, or its version
    /// is unknown).
    static func open(_ file: [UInt8], key: [UInt8]) -> [UInt8]? {
        guard file.count >= header.count, Array(file.prefix(header.count)) == header else { return nil }
        return try? AESGCM.open(Array(file.dropFirst(header.count)), key: SecureBytes(key), associatedData: header)
    }
}
