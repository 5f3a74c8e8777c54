import MSALNative

/// What to do with what the cache path names, by its kind.
enum CachePathDecision: Equatable, Sendable {
    /// Nothing there: an empty cache (a write creates the file).
    case empty
    /// A regular file (or a symbolic link to one): read it, replace it by rename.
    case use
    /// Anything else (a FIFO, a device, a socket, a folder): never opened for a read that can
    /// block, never renamed, replaced or written.
    case refuse(FileKind)

    static func decide(_ kind: FileKind?) -> CachePathDecision {
        guard let kind else { return .empty }
        return kind == .regular ? .use : .refuse(kind)
    }
}

/// What to do with what a read found. A file that looks corrupt or empty may be an in-place
/// writer's half-way state (msal-extensions truncates, then writes): judged under the locks only.
enum CacheReadDecision: Equatable, Sendable {
    /// The document (or an empty cache) is what it seems.
    case accept
    /// Read it again holding the locks first.
    case readAgainUnderLocks
    /// Corrupt, read under the locks: moved aside and reported; the cache goes on empty.
    case quarantine
    /// Corrupt, and the locks cannot be taken (a read-only folder): reported, left in place.
    case reportWithoutMoving

    enum Seen: Equatable, Sendable {
        case document, emptyFile, corrupt
    }

    /// `underLocks`: whether the read was made holding the locks; `canLock`: whether this process
    /// can take them (write in the folder).
    static func decide(_ seen: Seen, underLocks: Bool, canLock: Bool) -> CacheReadDecision {
        switch seen {
        case .document: return .accept
        case .emptyFile: return !underLocks && canLock ? .readAgainUnderLocks : .accept
        case .corrupt:
            if underLocks { return .quarantine }
            return canLock ? .readAgainUnderLocks : .reportWithoutMoving
        }
    }
}

/// Whether the sweep removes a leftover temporary file of a writer (`.<cache>.tmp-<pid>-<n>`). A
/// writer holds its `flock` until it renamed it, so a locked file stays, whatever its PID says (a
/// writer in another PID namespace looks dead here). An unlocked one goes after a second when its
/// PID does not exist here, else only when it is old enough to be left over for sure.
enum SweepDecision: Equatable, Sendable {
    case keep, remove

    /// Age of an unlocked file of a PID that does not exist here before it is removed.
    static let minimumAgeNanoseconds: Int64 = 1_000_000_000
    /// Age of an unlocked file of a PID that exists here before it is removed.
    static let minimumAgeOfLivePIDNanoseconds: Int64 = 10 * 60 * 1_000_000_000

    /// `ageNanoseconds`: now minus its modification time.
    static func decide(ageNanoseconds: Int64, lockIsFree: Bool, pidExists: Bool) -> SweepDecision {
        guard lockIsFree else { return .keep }
        let bound = pidExists ? minimumAgeOfLivePIDNanoseconds : minimumAgeNanoseconds
        return ageNanoseconds >= bound ? .remove : .keep
    }
}

/// Whether an existing `<cache>.lockfile` of MSAL Python's extension (msal-extensions: exclusive
/// creation, then `flock`, then "<pid> <argv0>" written; on release unlock, then delete), found
/// with its `flock` free, is stale and taken over (holding its `flock` meanwhile), or waited for.
enum ExtensionsLockStep: Equatable, Sendable {
    case wait
    case takeOver

    /// Who wrote it, by the PID written in it (``pid(in:)``).
    enum Writer: Equatable, Sendable {
        /// Nothing written yet: its creator is between the creation and its `flock`.
        case notWritten
        /// The PID exists here (perhaps between its unlock and its delete).
        case alive
        /// The PID does not exist here: killed while holding it.
        case gone
    }

    /// msal-extensions waits this long for its exclusive creation before it goes ahead anyway.
    static let staleAfterNanoseconds: Int64 = 5 * 1_000_000_000

    /// Stale when its writer is gone, or it stayed unlocked as long as msal-extensions itself
    /// waits; `ageNanoseconds`: now minus its modification time.
    static func decide(writer: Writer, ageNanoseconds: Int64) -> ExtensionsLockStep {
        writer == .gone || ageNanoseconds >= staleAfterNanoseconds ? .takeOver : .wait
    }

    /// The PID at the start of a lockfile's contents ("<pid> <argv0>").
    static func pid(in contents: [UInt8]) -> Int32? {
        let digits = contents.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard !digits.isEmpty, digits.count < 10 else { return nil }
        return Int32(String(decoding: digits, as: UTF8.self))
    }
}
