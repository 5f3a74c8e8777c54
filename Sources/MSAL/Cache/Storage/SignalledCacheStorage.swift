import Foundation
import MSALNative

/// Storage of the whole cache document outside any file (a keyring item), whose changes are
/// announced by touching a signal file, as msal-extensions' persistences do
/// (`LibsecretPersistence`, `KeychainPersistence`). The cache then coordinates around the signal
/// file the way it does around a cache file, so that this library's processes and Python apps
/// with msal-extensions on the same item never lose each other's writes:
///
/// - every change holds our lock (`<signal>.lock`) and msal-extensions' (`<signal>.lockfile`, its
///   `PersistedTokenCache` default), reads the item again, and saves it; the storage's ``save``
///   touches the signal file after the item was written;
/// - a read loads the item again only when the signal file changed since the last load (one
///   `stat`), as `PersistedTokenCache` compares the file's time;
/// - refreshes of one token are serialised across processes on `<signal>.refresh.lock`
///   (``RefreshLock``), as for a cache file.
package protocol SignalledCacheStorage: MSALCacheStorage {
    /// The absolute path of the signal file; its folder is made (mode 0700) when missing.
    var signalFilePath: String { get }
}

package enum CacheSignalFile {
    /// The schema name msal-extensions gives a `LibsecretPersistence` made without one: the
    /// lowercase hexadecimal SHA-256 of the signal file's path as the app wrote it.
    package static func extensionsSchemaName(signalPath: String) -> String {
        SHA256.hash(signalPath).map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }.joined()
    }

    /// Marks a change: sets the signal file's modification time to now, making it (empty, mode
    /// 0600, in a folder made with mode 0700) when there is none.
    package static func touch(_ path: String) throws {
        let manager = FileManager.default
        if manager.fileExists(atPath: path) {
            try manager.setAttributes([.modificationDate: Date()], ofItemAtPath: path)
            return
        }
        try FileSystem.createFolders(FileSystem.folder(of: path), mode: 0o700)
        guard manager.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
    }
}
