import Foundation
import Glibc
import MSALNative

/// The cache file on disk: windowed reading, atomic replacement, quarantine of corrupt files.
/// Callers hold the ``FileLock`` around every read-modify-write.
struct CacheFile: Sendable {
    let path: String
    /// Whether the folder is the library's own (kept at mode 0700).
    let ownsFolder: Bool
    let encryptionKey: [UInt8]?
    let durable: Bool

    var lockPath: String { path + ".lock" }
    var folder: String { (path as NSString).deletingLastPathComponent }

    /// Creates the folder (mode 0700) when missing; tightens the library's own folder to 0700.
    func prepareFolder() throws {
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) {
            try createFolders(folder)
        }
        if ownsFolder { chmod(folder, 0o700) }
    }

    private func createFolders(_ path: String) throws {
        if path.isEmpty || path == "/" || FileManager.default.fileExists(atPath: path) { return }
        try createFolders((path as NSString).deletingLastPathComponent)
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw CacheStorageError.io("create the folder", path: path, errno: errno)
        }
    }

    /// Reads the file. Missing: empty. Not JSON or truncated: moved aside as
    /// `<file>.corrupt-<epoch seconds>`, an error logged, empty. Encrypted without the right
    /// key: throws, the file untouched.
    func load() throws -> (contents: CacheContents, fingerprint: FileFingerprint?) {
        let file: NativeFile
        do {
            file = try NativeFile.openForReading(path)
        } catch {
            if error.isNotFound { return (CacheContents(), nil) }
            throw CacheStorageError.io("open the cache file", path: path, errno: error.code)
        }
        let status: FileStatus
        do {
            status = try file.status()
        } catch {
            throw CacheStorageError.io("stat the cache file", path: path, errno: error.code)
        }
        let fingerprint = FileFingerprint(status)
        do {
            let contents = try read(file, size: Int(status.size))
            return (contents, fingerprint)
        } catch let corrupt as CacheDocumentCodec.Corrupt {
            quarantine(reason: corrupt)
            return (CacheContents(), nil)
        }
    }

    private func read(_ file: NativeFile, size: Int) throws -> CacheContents {
        // Peek at the start to tell an encrypted file from JSON.
        let head: [UInt8]
        do {
            head = try file.read(at: 0, count: CacheEncryption.header.count)
        } catch {
            throw CacheStorageError.io("read the cache file", path: path, errno: error.code)
        }
        if CacheEncryption.isEncrypted(head[...]) || encryptionKey != nil {
            let whole: [UInt8]
            do {
                whole = try file.read(at: 0, count: max(size, head.count))
            } catch {
                throw CacheStorageError.io("read the cache file", path: path, errno: error.code)
            }
            if CacheEncryption.isEncrypted(whole) {
                guard let key = encryptionKey, let plaintext = CacheEncryption.open(whole, key: key) else {
                    throw CacheStorageError.cannotDecrypt(path: path, keyConfigured: encryptionKey != nil)
                }
                return try CacheDocumentCodec.decode(plaintext)
            }
            // With a key set, only a plain JSON document is accepted (and re-encrypted later); anything
            // else may be an encrypted file with a damaged header, so it is left untouched.
            guard
                whole.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }).map({
                    $0 == UInt8(ascii: "{")
                }) ?? true
            else {
                throw CacheStorageError.cannotDecrypt(path: path, keyConfigured: true)
            }
            Log.warning("Token cache: \(pii: path) is not encrypted; it is re-written encrypted on the next change.")
            return try CacheDocumentCodec.decode(whole)
        }
        return try readDocument(CacheFileSnapshot(file: file), size: size)
    }

    /// Moves a corrupt file aside and logs an error; the cache goes on empty.
    private func quarantine(reason: CacheDocumentCodec.Corrupt) {
        var target = "\(path).corrupt-\(Int(Date().timeIntervalSince1970))"
        var suffix = 1
        while access(target, F_OK) == 0 {
            target = "\(path).corrupt-\(Int(Date().timeIntervalSince1970))-\(suffix)"
            suffix += 1
        }
        let moved = rename(path, target) == 0
        let outcome = moved ? "It was moved to" : "It could not be moved to"
        Log.error(
            "Token cache: \(pii: path) is not a valid cache document (\(reason.reason) at byte \(reason.offset)). \(outcome) \(pii: target); continuing with an empty cache."
        )
    }

    /// Replaces the file atomically: a temporary file in the same folder (mode 0600), written,
    /// fsynced, renamed over the file, and the folder fsynced. Returns the new fingerprint and,
    /// for a plain file, the new file as a snapshot with where each secret went in it, so the
    /// store can read its secrets and copy its entries from there (``TokenStore/place(in:_:)``).
    func save(_ contents: CacheContents) throws -> (
        fingerprint: FileFingerprint?, placed: (CacheFileSnapshot, CacheDocumentWriter.Placements)?
    ) {
        try prepareFolder()
        let temporary =
            "\(folder)/.\((path as NSString).lastPathComponent).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        // Read-write: after the rename this file is the new version's snapshot.
        let file: NativeFile
        do {
            file = try NativeFile.createNew(temporary, mode: 0o600)
        } catch {
            throw CacheStorageError.io("create a temporary file", path: temporary, errno: error.code)
        }
        var placements: CacheDocumentWriter.Placements?
        do {
            if let key = encryptionKey {
                let sealed = try CacheEncryption.seal(CacheDocumentCodec.encode(contents), key: key)
                do {
                    try file.write(sealed, at: 0)
                } catch {
                    throw CacheStorageError.io("write a temporary file", path: temporary, errno: error.code)
                }
            } else {
                placements = try writeDocument(contents, to: file, path: temporary)
            }
            if durable {
                do {
                    try file.sync()
                } catch {
                    throw CacheStorageError.io("fsync a temporary file", path: temporary, errno: error.code)
                }
            }
            guard rename(temporary, path) == 0 else {
                throw CacheStorageError.io("replace the cache file", path: path, errno: errno)
            }
        } catch {
            unlink(temporary)
            throw error
        }
        removeTemporariesOfDeadWriters()
        if durable {
            let folderDescriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if folderDescriptor >= 0 {
                fsync(folderDescriptor)
                close(folderDescriptor)
            }
        }
        // The fingerprint of the version written (even if another program replaced it since).
        let fingerprint = (try? file.status()).map(FileFingerprint.init) ?? FileFingerprint.of(path: path)
        guard let placements else { return (fingerprint, nil) }
        return (fingerprint, (CacheFileSnapshot(file: file), placements))
    }

    /// Paths whose folder was already swept by this process.
    private static let swept = Locked<Set<String>>([])

    /// Removes the temporary files a writer left when it died between creating one and renaming it
    /// (`kill -9`, a crash, power loss), once per process and cache file: a temporary file whose
    /// writer process no longer exists. Files of live processes are left alone.
    private func removeTemporariesOfDeadWriters() {
        let isFirst = Self.swept.withLock { $0.insert(path).inserted }
        guard isFirst, let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        let prefix = ".\((path as NSString).lastPathComponent).tmp-"
        for name in names where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count).prefix { $0 != "-" }), pid != getpid(),
                kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            unlink("\(folder)/\(name)")
        }
    }
}
