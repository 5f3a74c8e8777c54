public import Foundation

extension MSALCacheStorage {
    /// Encrypts the plaintext cache document this storage holds with `key`, once: the explicit
    /// step that moves a storage used without ``MSALCacheConfig/encryptionKey`` to encryption.
    ///
    /// With a key configured, the library refuses a plaintext document in the storage (it could
    /// have been planted by anyone who can write there), so a storage that already holds one is
    /// encrypted by this call, made by one operator on one machine before the machines are given
    /// the key. It checks that the document is a token cache, seals it for
    /// ``cacheIdentity``, and saves it (with compare-and-set on a ``MSALSharedCacheStorage``).
    ///
    /// - Returns: `true` when a plaintext document was encrypted; `false` when the storage holds
    ///   nothing or an encrypted document (nothing is changed).
    /// - Throws: an `MSALErrorDomain` error when `key` is no usable key (32 random bytes), the document is not a
    ///   token cache, another writer saved in between (run it again), or the storage fails.
    public func encryptPlaintextDocument(with key: Data) throws -> Bool {
        if let problem = CacheKeyCheck.problem([UInt8](key)) {
            throw MSALErrors.make(.internalErrorInvalidParameter, "The cache encryption key is unusable: \(problem).")
        }
        let versioned = self as? any MSALSharedCacheStorage
        let data: Data?
        let version: UInt64
        do {
            if let versioned {
                let document = try versioned.loadVersioned()
                (data, version) = (document.data, document.version)
            } else {
                (data, version) = (try load(), 0)
            }
        } catch {
            throw CacheStorageError.customStorage(error).error
        }
        let bytes = data.map { [UInt8]($0) } ?? []
        guard !CacheEncryption.isEncrypted(bytes), !CacheDocument.isBlank(bytes) else { return false }
        do {
            _ = try CacheDocument.read(bytes)
        } catch {
            throw MSALErrors.make(
                .internal,
                "The storage's document is not a token cache (\(error.reason)); it was left as it is.")
        }
        do {
            let sealed = Data(try CacheEncryption.seal(bytes, key: [UInt8](key), for: .storage(cacheIdentity)))
            if let versioned {
                guard case .saved = try versioned.save(sealed, replacingVersion: version, lease: nil) else {
                    throw CacheStorageError.writeConflicts(attempts: 1)
                }
            } else {
                try save(sealed)
            }
        } catch let error as CacheStorageError {
            throw error.error
        } catch {
            throw CacheStorageError.customStorage(error).error
        }
        return true
    }
}
