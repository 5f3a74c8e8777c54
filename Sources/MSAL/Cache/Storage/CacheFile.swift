import Foundation
import MSALNative

/// The cache file on disk: reading without blocking, atomic replacement beside the file a link
/// points to, quarantine of corrupt files. Callers hold the locks (``CacheFileLocks``) around
/// every read-modify-write; reading needs none.
struct CacheFile: Sendable {
    let path: String
    /// Whether the folder is the library's own (kept at mode 0700).
    let ownsFolder: Bool
    let encryptionKey: [UInt8]?

    /// What a read found.
    enum Loaded {
        /// Nothing at the path.
        case missing
        case document(TokenStore, FileFingerprint)
        /// A regular file of no bytes.
        case emptyFile(FileFingerprint)
        case corrupt(JSONValue.ParseError, FileFingerprint)
    }

    /// The file a write replaces: the end of the chain of symbolic links at ``path`` (so a link
    /// stays a link, and dotfile managers keep working), or ``path`` itself.
    func writeTarget() throws(CacheStorageError) -> String {
        try CacheStorageError.attempt("resolve the symbolic links of the cache file") { () throws(FileError) in
            try FileSystem.resolvingSymbolicLinks(path)
        }
    }

    /// Our lock file for writes of `target`.
    static func lockPath(for target: String) -> String { target + ".lock" }

    /// Whether this process can write in the folder of `target` (and so take the locks). A
    /// missing folder counts as writable when it can be created.
    static func canWrite(besides target: String) -> Bool {
        nearestFolder(of: target).map { FileSystem.isWritableFolder($0.path) } ?? false
    }

    /// The folder of `target`, or its nearest existing parent, with its status.
    private static func nearestFolder(of target: String) -> (path: String, status: FileStatus)? {
        var folder = FileSystem.folder(of: target)
        while true {
            if let status = try? FileSystem.status(folder) { return (folder, status) }
            let parent = FileSystem.folder(of: folder)
            if parent == folder { return nil }
            folder = parent
        }
    }

    /// Creates the folder of `target` (mode 0700) when missing, tightens the library's own to 0700;
    /// throws when it cannot be written.
    func prepareFolder(for target: String) throws(CacheStorageError) {
        let folder = FileSystem.folder(of: target)
        do {
            try FileSystem.createFolders(folder, mode: 0o700)
            if ownsFolder { try FileSystem.setPermissions(folder, 0o700) }
        } catch {
            if error.isReadOnlyOrDenied {
                throw .notWritable(path: path, folder: error.path, reason: error.message)
            }
            throw .file(error, "create the folder")
        }
        if !FileSystem.isWritableFolder(folder) {
            throw .notWritable(path: path, folder: folder, reason: "no write permission, or a read-only file system")
        }
    }

    /// Reads the file without blocking (a FIFO or a device is refused, never opened for a read
    /// that can block). Encrypted without the right key: throws, the file untouched.
    func load() throws -> Loaded {
        let file: NativeFile
        do {
            file = try NativeFile.openForReading(path)
        } catch {
            if error.isNotFound { return .missing }
            throw CacheStorageError.file(error, "open the cache file")
        }
        let status = try CacheStorageError.attempt("stat the cache file", file.status)
        if case .refuse(let kind) = CachePathDecision.decide(status.kind) {
            throw CacheStorageError.notARegularFile(path: path, kind: kind)
        }
        let fingerprint = FileFingerprint(status, file: file)
        if status.size == 0 { return .emptyFile(fingerprint) }
        // The whole file: its size when opened, and whatever an in-place writer added since.
        let bytes = try CacheStorageError.attempt("read the cache file") { () throws(FileError) in
            var bytes = try file.read(at: 0, count: Int(status.size))
            while case let more = try file.read(at: bytes.count, count: 1 << 16), !more.isEmpty { bytes += more }
            return bytes
        }
        let head = bytes.prefix(CacheFileOwnership.headBytes)
        if case .notACache(let found) = CacheFileOwnership.judge(head: head) {
            throw CacheStorageError.notATokenCache(path: path, target: linkTarget, found: found)
        }
        do {
            return .document(try read(bytes), fingerprint)
        } catch let corrupt as JSONValue.ParseError {
            let judged = CacheFileOwnership.judgeDamage(head: head, faultOffset: corrupt.offset, size: bytes.count)
            if case .notACache(let found) = judged {
                throw CacheStorageError.notATokenCache(path: path, target: linkTarget, found: found)
            }
            return .corrupt(corrupt, fingerprint)
        }
    }

    /// The file a symbolic link at ``path`` points to (the end of its chain); `nil` when ``path``
    /// is no link.
    var linkTarget: String? {
        guard let target = try? writeTarget(), target != path else { return nil }
        return target
    }

    /// Whether a write may make its lock and temporary files beside `target`
    /// (``CacheLinkTargetDecision``): always when ``path`` is no link, else only in a folder this
    /// user owns (the nearest existing one when the target's folder is missing).
    func mayWriteBeside(_ target: String) -> Bool {
        let owner = Self.nearestFolder(of: target)?.status.owner
        return CacheLinkTargetDecision.decide(
            isLink: target != path, folderOwner: owner, user: FileSystem.currentUserID)
            == .allow
    }

    /// Refuses a write before anything is made beside `target`: through a link into a folder of
    /// another user, or over a file that is no token cache (``CacheFileOwnership``, its first bytes).
    func checkOwnership(_ target: String) throws(CacheStorageError) {
        if !mayWriteBeside(target) {
            throw .linkIntoForeignFolder(path: path, target: target, folder: FileSystem.folder(of: target))
        }
        let head = try CacheStorageError.attempt("read the cache file") { () throws(FileError) in
            try FileSystem.readSmallFile(target, limit: CacheFileOwnership.headBytes)
        }
        if let head, case .notACache(let found) = CacheFileOwnership.judge(head: head) {
            throw .notATokenCache(path: path, target: target != path ? target : nil, found: found)
        }
    }

    /// Refuses a write when `target` names something other than a regular file.
    func checkTarget(_ target: String) throws(CacheStorageError) {
        let status = try CacheStorageError.attempt("stat the cache file") { () throws(FileError) in
            try FileSystem.status(target)
        }
        if case .refuse(let kind) = CachePathDecision.decide(status?.kind) {
            throw .notARegularFile(path: path, kind: kind)
        }
    }

    /// The document of the file's bytes, decrypted when encrypted. With a key configured, a plain
    /// JSON document is read too (and encrypted by the next save); anything else may be an
    /// encrypted file with a damaged header, and is left untouched.
    private func read(_ bytes: [UInt8]) throws -> TokenStore {
        if CacheEncryption.isEncrypted(bytes) {
            guard let key = encryptionKey, let plaintext = CacheEncryption.open(bytes, key: key, for: .file) else {
                throw CacheStorageError.cannotDecrypt(path: path, keyConfigured: encryptionKey != nil)
            }
            return try CacheDocument.read(plaintext)
        }
        if encryptionKey != nil {
            let text = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
            guard text.first(where: { !CacheFileOwnership.isWhiteSpace($0) }).map({ $0 == UInt8(ascii: "{") }) ?? true
            else {
                throw CacheStorageError.cannotDecrypt(path: path, keyConfigured: true)
            }
            Log.warning("Token cache: \(pii: path) is not encrypted; it is re-written encrypted on the next change.")
        }
        return try CacheDocument.read(bytes)
    }

    /// Moves a corrupt file aside as `<file>.corrupt-<epoch seconds>` (beside the file a link
    /// points to; a link itself stays) and reports it: a warning in the log, and the returned
    /// report for the caller. `move` false: the folder cannot be written; reported only.
    func quarantine(_ corrupt: JSONValue.ParseError, move: Bool) -> CacheQuarantine {
        let reason = "\(corrupt.reason) at byte \(corrupt.offset)"
        guard move, let target = try? writeTarget() else {
            Log.warning(
                "Token cache: \(pii: path) is not a valid cache document (\(reason)). It was left where it is (its folder is not writable); continuing with an empty cache."
            )
            return CacheQuarantine(path: path, movedTo: nil, reason: reason)
        }
        let seconds = Int(FileSystem.wallClockNanoseconds() / 1_000_000_000)
        var suffix = ".corrupt-\(seconds)"
        var attempt = 1
        while (try? FileSystem.linkStatus(target + suffix)) != nil {
            suffix = ".corrupt-\(seconds)-\(attempt)"
            attempt += 1
        }
        let moved = (try? FileSystem.rename(target, to: target + suffix)) != nil
        let outcome = moved ? "It was moved to" : "It could not be moved to"
        // The new file's name in clear (the folder is personal data): a user finds it by it.
        Log.warning(
            "Token cache: \(pii: path) is not a valid cache document (\(reason)). \(outcome) \(FileSystem.name(of: target) + suffix) in \(pii: FileSystem.folder(of: target)); continuing with an empty cache."
        )
        return CacheQuarantine(path: path, movedTo: moved ? target + suffix : nil, reason: reason)
    }

    /// Replaces `target` atomically with the document of `store`: a temporary file beside it (0600,
    /// created exclusively, never through a link, `flock`ed while written), fsynced, renamed over
    /// it, the folder fsynced. `beforeReplacing` may throw to stop. Returns the new fingerprint.
    func save(_ store: TokenStore, to target: String, beforeReplacing: () throws -> Void) throws -> FileFingerprint? {
        try checkTarget(target)
        var bytes = CacheDocument.write(store)
        if let key = encryptionKey { bytes = try CacheEncryption.seal(bytes, key: key, for: .file) }
        let folder = FileSystem.folder(of: target)
        let temporary =
            "\(folder)/.\(FileSystem.name(of: target)).tmp-\(FileSystem.currentProcessID)-\(UInt32.random(in: 0...UInt32.max))"
        let file: NativeFile
        do {
            file = try NativeFile.createNew(temporary, mode: 0o600)
            // Held while written: the sweep of another process leaves a locked file alone.
            _ = try file.tryLock()
        } catch {
            if error.isReadOnlyOrDenied {
                throw CacheStorageError.notWritable(path: path, folder: folder, reason: error.message)
            }
            throw CacheStorageError.file(error, "create a temporary file")
        }
        do {
            try CacheStorageError.attempt("write a temporary file") { () throws(FileError) in
                try file.write(bytes, at: 0)
                try file.sync()
            }
            try beforeReplacing()
            try CacheStorageError.attempt("replace the cache file") { () throws(FileError) in
                try FileSystem.rename(temporary, to: target)
            }
        } catch {
            _ = try? FileSystem.remove(temporary)
            throw error
        }
        file.unlock()
        removeLeftoverTemporaries(of: target)
        try? FileSystem.syncFolder(folder)
        // The fingerprint of the version written (even if another program replaced it since).
        return (try? file.status()).map { FileFingerprint($0, file: file) } ?? FileFingerprint.of(path: path)
    }

    /// Paths whose folder was already swept by this process.
    private static let swept = Locked<Set<String>>([])

    /// Removes the temporary files writers left when they died between creating one and renaming
    /// it (`kill -9`, a crash, power loss), once per process and cache file: those unlocked and old
    /// enough (``SweepDecision``).
    private func removeLeftoverTemporaries(of target: String) {
        let isFirst = Self.swept.withLock { $0.insert(target).inserted }
        let folder = FileSystem.folder(of: target)
        guard isFirst, let names = try? FileSystem.names(inFolder: folder) else { return }
        let prefix = ".\(FileSystem.name(of: target)).tmp-"
        let now = FileSystem.wallClockNanoseconds()
        for name in names where name.hasPrefix(prefix) {
            let leftover = "\(folder)/\(name)"
            guard let pid = Int32(name.dropFirst(prefix.count).prefix { $0 != "-" }),
                pid != FileSystem.currentProcessID,
                let file = try? LockFile.openExistingForLocking(leftover), let status = try? file.status(),
                status.kind == .regular
            else { continue }
            let decision = SweepDecision.decide(
                ageNanoseconds: now - status.modifiedNanoseconds, lockIsFree: (try? file.tryLock()) ?? false,
                pidExists: FileSystem.isProcessAlive(pid))
            if decision == .remove { _ = try? FileSystem.remove(leftover) }
        }
    }
}

/// A corrupt cache file moved aside (or, in a folder this process cannot write, left in place),
/// for the app or the CLI to tell the user (``TokenCache/takeQuarantines()``).
struct CacheQuarantine: Equatable, Sendable {
    /// The cache path.
    var path: String
    /// Where the file went; `nil` when it could not be moved.
    var movedTo: String?
    /// Why it is not a cache document.
    var reason: String
}
