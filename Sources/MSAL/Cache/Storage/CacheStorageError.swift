import Foundation
import MSALNative

/// Failures of the cache storage, turned into MSAL errors by ``error``.
enum CacheStorageError: Error {
    case io(String, path: String, errno: Int32)
    case lockTimeout(path: String, seconds: Double)
    /// The file is encrypted and no key, or another key, is configured.
    case cannotDecrypt(path: String, keyConfigured: Bool)
    /// An encryption key is configured and the app's storage holds a document that is not this
    /// library's ciphertext (plaintext, planted or left from before encryption).
    case notEncrypted
    case customStorage(any Error)
    /// A versioned storage's compare-and-set save kept finding newer versions.
    case writeConflicts(attempts: Int)
    /// The cache path names something other than a regular file (a FIFO, a device, a folder...).
    case notARegularFile(path: String, kind: FileKind)
    /// The cache path names a regular file that is not a token cache (a shell script that a
    /// mistyped path or a symbolic link names): never renamed, replaced or written. `target`: the
    /// file a link at `path` points to; `found`: what it is, in words (``CacheFileOwnership``).
    case notATokenCache(path: String, target: String?, found: String)
    /// The cache path is a symbolic link into a folder this user does not own: no lock or
    /// temporary file is made there (``CacheLinkTargetDecision``).
    case linkIntoForeignFolder(path: String, target: String, folder: String)
    /// A write is needed and this process cannot write in the cache's folder.
    case notWritable(path: String, folder: String, reason: String)
    /// A lock file name is a symbolic link (planted, never followed) or not a regular file.
    case unsafeLockFile(path: String)
    /// The lock file was removed or replaced while held (a temp cleaner): the write starts over.
    /// Never leaves ``TokenCache``.
    case lockLost(path: String)
    /// The cache's key store (``MSALCacheKeyStore``) failed or holds something unusable.
    case keyStoreFailed(store: String, reason: String)
    /// The cache file is encrypted and the key store has no key for it (emptied by a reboot, or
    /// another session's): the file is left untouched.
    case keyGone(path: String, store: String)

    /// The error of a failed file call, as `action` (a phrase such as "open the lock file").
    static func file(_ error: FileError, _ action: String) -> CacheStorageError {
        .io(action, path: error.path, errno: error.code)
    }

    /// The result of a file call, its failure as `action`.
    static func attempt<Result>(_ action: String, _ body: () throws(FileError) -> Result) throws(CacheStorageError)
        -> Result
    {
        do {
            return try body()
        } catch {
            throw .file(error, action)
        }
    }

    /// The `NSError` in ``MSALErrorDomain`` (internal) that apps receive.
    var error: NSError {
        guard case .customStorage(let underlying) = self else { return MSALErrors.make(.internal, message) }
        // A storage of this library's products (MSALRedisCache) throws MSAL errors with their own
        // documented codes: passed on as they are.
        let bridged = underlying as NSError
        if bridged.domain == MSALErrorDomain { return bridged }
        // Any other storage's failure (a sealed vault, a locked keyring) is not the library's: its
        // own words, and an underlying error that carries them rather than "report it".
        let text = Redaction.text((underlying as? any LocalizedError)?.errorDescription ?? "\(underlying)")
        let storageError = NSError(
            domain: bridged.domain, code: bridged.code, userInfo: [NSLocalizedDescriptionKey: text])
        return MSALErrors.make(
            .internal, "The app's token cache storage (cacheConfig.customStorage) failed: \(text)",
            ErrorDetails(underlyingError: storageError))
    }

    private var message: String {
        switch self {
        case .customStorage: ""
        case .io(let action, let path, let code):
            "The token cache could not \(action) at \(path): \(FileError.message(for: code)) (errno \(code)). "
                + "Check that the folder exists and is writable by this user, or set cacheConfig.cacheFileURL."
        case .lockTimeout(let path, let seconds):
            "Timed out after \(seconds) s waiting for the token cache lock \(path): another process holds it. "
                + "Retry; if it persists, find the process that keeps the cache locked."
        case .cannotDecrypt(let path, let keyConfigured):
            keyConfigured
                ? "The token cache \(path) could not be decrypted with the configured cacheConfig.encryptionKey "
                    + "(wrong key, or the file was modified). The file was left untouched. Configure the key it was "
                    + "written with, or point cacheConfig.cacheFileURL at another file."
                : "The token cache \(path) is encrypted and no cacheConfig.encryptionKey is configured. The file "
                    + "was left untouched. Configure the 32-byte key it was written with."
        case .notEncrypted:
            "The token cache storage (cacheConfig.customStorage) holds a document that is not encrypted, "
                + "while cacheConfig.encryptionKey is set. It was neither read nor overwritten: anyone who can "
                + "write to the storage could have planted it. To encrypt a cache that was kept in plaintext "
                + "before, see \"Encrypting a cache that was plaintext\" in Docs/TokenCache.md."
        case .writeConflicts(let attempts):
            "The shared token cache storage changed under each of \(attempts) attempts to save this change "
                + "(other writers kept saving first); nothing was saved. Retry."
        case .notARegularFile(let path, let kind):
            "The token cache path \(path) is \(kind.phrase), not a regular file. It was left untouched and "
                + "nothing was read from or written to it. Point cacheConfig.cacheFileURL at a regular file "
                + "(or a symbolic link to one), or remove what is there."
        case .notATokenCache(let path, let target, let found):
            "The token cache path \(path)\(target.map { " (a symbolic link to \($0))" } ?? "") holds \(found): it is not a token cache; refusing to overwrite "
                + "it. It was left untouched: nothing was renamed, replaced or written, and nothing was created "
                + "beside it. Point cacheConfig.cacheFileURL (msal: --cache or MSAL_CACHE) at a token cache or at "
                + "a path where no file exists yet."
        case .linkIntoForeignFolder(let path, let target, let folder):
            "The token cache path \(path) is a symbolic link to \(target), in the folder \(folder), which this "
                + "user does not own: the cache's lock and temporary files are never made there (another user "
                + "could plant or read them). Nothing was written. Keep the cache in a folder of this user, or "
                + "point cacheConfig.cacheFileURL at the file itself."
        case .notWritable(let path, let folder, let reason):
            "The token cache \(path) cannot be written: its folder \(folder) is not writable by this process "
                + "(\(reason)). Reading it works; this change was not saved. Make the folder writable, or set "
                + "cacheConfig.cacheFileURL to a writable place."
        case .unsafeLockFile(let path):
            "The token cache lock file \(path) is a symbolic link or not a regular file; it is never followed. "
                + "Nothing was written. Remove it; the library makes a new one."
        case .lockLost(let path):
            "The token cache lock file \(path) was removed again and again while this process held it "
                + "(a cleaner of temporary files?); nothing was written. Retry, and keep cleaners away from it."
        case .keyStoreFailed(let store, let reason):
            "The token cache's key store (\(store)) failed: \(reason). Nothing was read or written. "
                + "Fix the store, or choose another in cacheConfig.encryptionKeyStore."
        case .keyGone(let path, let store):
            "The token cache \(path) is encrypted, and its key store (\(store)) holds no key: the store was "
                + "emptied (a kernel keyring by a reboot, a keyring by a reset) or is another session's. The "
                + "file was left untouched. Restore the key, or remove the file to "
                + "start over (every account then signs in again)."
        }
    }
}
