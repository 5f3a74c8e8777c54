import Foundation
import Glibc

/// Failures of the cache storage, turned into MSAL errors by ``error``.
enum CacheStorageError: Error {
    case io(String, path: String, errno: Int32)
    case lockTimeout(path: String, seconds: Double)
    /// The file is encrypted and no key, or another key, is configured.
    case cannotDecrypt(path: String, keyConfigured: Bool)
    case customStorage(any Error)
    /// Another program rewrote the file in place while a save copied secrets from it.
    case changedUnderneath(path: String)

    /// The `NSError` in ``MSALErrorDomain`` (internal) that apps receive.
    var error: NSError {
        switch self {
        case .io(let action, let path, let code):
            return MSALErrors.make(
                .internal,
                "The token cache could not \(action) at \(path): \(String(cString: strerror(code))) (errno \(code)). "
                    + "Check that the folder exists and is writable by this user, or set cacheConfig.cacheFileURL.")
        case .lockTimeout(let path, let seconds):
            return MSALErrors.make(
                .internal,
                "Timed out after \(seconds) s waiting for the token cache lock \(path): another process holds it. "
                    + "Retry; if it persists, find the process that keeps the cache locked.")
        case .cannotDecrypt(let path, let keyConfigured):
            return MSALErrors.make(
                .internal,
                keyConfigured
                    ? "The token cache \(path) could not be decrypted with the configured cacheConfig.encryptionKey "
                        + "(wrong key, or the file was modified). The file was left untouched. Configure the key it was "
                        + "written with, or point cacheConfig.cacheFileURL at another file."
                    : "The token cache \(path) is encrypted and no cacheConfig.encryptionKey is configured. The file "
                        + "was left untouched. Configure the 32-byte key it was written with.")
        case .changedUnderneath(let path):
            return MSALErrors.make(
                .internal,
                "The token cache \(path) was rewritten in place by another program while this one saved it; "
                    + "nothing was written. Retry: the file is read again first.")
        case .customStorage(let underlying):
            return MSALErrors.make(
                .internal,
                "The app's token cache storage (cacheConfig.customStorage) failed; see the underlying error.",
                ErrorDetails(underlyingError: underlying))
        }
    }
}
