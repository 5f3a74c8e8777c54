import MSALNative

/// The encrypted cache format: a versioned header, then AES-256-GCM's `nonce || ciphertext || tag`
/// of the document. The associated data is the header and the ``Binding`` of the cache it is for,
/// so a document copied from another cache does not open. Version 1 (unbound) still opens and is
/// bound at its next save. A rollback to an older document of the same cache is not detected.
enum CacheEncryption {
    /// `MSALCACHE` + NUL, format version 2 (bound), algorithm 1 (AES-256-GCM).
    static let header: [UInt8] = Array("MSALCACHE".utf8) + [0, 2, 1]
    /// Format version 1: the same, unbound.
    static let unboundHeader: [UInt8] = Array("MSALCACHE".utf8) + [0, 1, 1]

    /// What a ciphertext is for.
    struct Binding: Equatable {
        let bytes: [UInt8]

        /// The cache file (`cacheConfig.cacheFileURL`, or the default).
        static let file = Binding(bytes: Array("file".utf8))

        /// An app's storage, by its ``MSALCacheStorage/cacheIdentity``.
        static func storage(_ identity: String) -> Binding {
            Binding(bytes: Array("storage:\(identity)".utf8))
        }
    }

    /// `MSALCACHE` + NUL: an encrypted document of any version.
    static func isEncrypted(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.starts(with: header.prefix(10))
    }

    static func seal(_ plaintext: [UInt8], key: [UInt8], for binding: Binding) throws -> [UInt8] {
        header + (try AESGCM.seal(plaintext, key: SecureBytes(key), associatedData: header + binding.bytes))
    }

    /// The document, or `nil` when the key does not open it for `binding` (or it was modified, or
    /// its version is unknown).
    static func open(_ file: [UInt8], key: [UInt8], for binding: Binding) -> [UInt8]? {
        let associatedData: [UInt8]
        if file.starts(with: header) {
            associatedData = header + binding.bytes
        } else if file.starts(with: unboundHeader) {
            associatedData = unboundHeader
        } else {
            return nil
        }
        return try? AESGCM.open(
            Array(file.dropFirst(header.count)), key: SecureBytes(key), associatedData: associatedData)
    }
}
