/// Whose the file at the cache path is, from its bytes: a token cache (ours, or another MSAL's), a
/// damaged one, or a file of the user that is no token cache at all (a shell script a mistyped
/// `--cache` or a link names). Only a damaged cache is moved aside; any other file is never
/// renamed, replaced or written. Blank, this library's encrypted header, or a JSON object: a cache.
/// A JSON object that does not parse is a damaged cache when the parse ran out at the end (a
/// writer killed half-way: msal-extensions truncates, then writes in place) or the bytes before
/// the fault name a cache section or member; only NUL bytes (what a crash can leave) too. Anything
/// else (text, another JSON value, binary data) is not a cache.
enum CacheFileOwnership: Equatable, Sendable {
    /// A token cache, or a file that may be one (its first bytes open a JSON object): read it.
    case cache
    /// A token cache that is damaged: moved aside (quarantine) under the locks.
    case damagedCache
    /// Not a token cache: refused, never touched. `found` says what it is, in words that quote
    /// none of its bytes (a file a link names may hold secrets).
    case notACache(found: String)

    /// The bytes this judgement needs from the start of a file: the start of the document and,
    /// for a document that fails to parse, the part before the fault that is searched for names
    /// of the cache.
    static let headBytes = 4096

    /// The judgement from the first bytes of a file (at most ``headBytes``), before it is parsed.
    /// ``cache`` means "read it to know".
    static func judge(head: some Collection<UInt8>) -> CacheFileOwnership {
        let bytes = Array(head.starts(with: byteOrderMark) ? head.dropFirst(3) : head.dropFirst(0))
        if bytes.starts(with: encryptedHeader) { return .cache }
        guard let first = bytes.first(where: { !isWhiteSpace($0) }) else { return .cache }
        if bytes.allSatisfy({ $0 == 0 || isWhiteSpace($0) }) { return .damagedCache }
        switch first {
        case UInt8(ascii: "{"): return .cache
        case UInt8(ascii: "["): return .notACache(found: "a JSON array")
        case UInt8(ascii: "\""): return .notACache(found: "a JSON string")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .notACache(found: "a number")
        default:
            let text = bytes.prefix(512).allSatisfy { isWhiteSpace($0) || ($0 >= 0x20 && $0 != 0x7F) }
            return .notACache(found: text ? "text that is not JSON" : "binary data")
        }
    }

    /// The judgement of a file whose document did not parse: `head` its first bytes (at most
    /// ``headBytes``), `faultOffset` where the parse failed, `size` the file's size.
    static func judgeDamage(head: some Collection<UInt8>, faultOffset: Int, size: Int) -> CacheFileOwnership {
        let first = judge(head: head)
        guard first == .cache else { return first }
        if CacheEncryption.isEncrypted(Array(head.prefix(CacheEncryption.header.count))) { return .damagedCache }
        // Ran out at the end, or only white space after the fault: cut short.
        let tail = Array(head.dropFirst(max(0, faultOffset)))
        if faultOffset >= size || (faultOffset + tail.count >= size && tail.allSatisfy(isWhiteSpace)) {
            return .damagedCache
        }
        let before = Array(head.prefix(max(0, faultOffset)))
        let named = cacheNames.contains { name in
            before.indices.contains { before[$0...].starts(with: name) }
        }
        if named { return .damagedCache }
        return .notACache(found: "a JSON document that does not parse and names nothing of a token cache")
    }

    /// Quoted names whose presence before a fault shows the file was a token cache.
    static let cacheNames: [[UInt8]] =
        CacheSection.allCases.map { section in
            Array("\"\(section.rawValue)\"".utf8)
        } + ["\"credential_type\"", "\"home_account_id\"", "\"MSALDiscovery\""].map { Array($0.utf8) }

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
    private static let encryptedHeader: [UInt8] = Array("MSALCACHE".utf8) + [0]

    static func isWhiteSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}

/// Whether a write may create the cache's lock and temporary files beside the file a symbolic
/// link at the cache path points to: only in a folder this user owns. In a folder of another
/// user (or a world-writable one of root's, such as `/tmp`, for a user other than root) another
/// user could plant those files or read them, so the write is refused instead. A cache path that
/// is no link is where the app (or the user) chose to keep the cache, and is used as it is.
enum CacheLinkTargetDecision: Equatable, Sendable {
    case allow
    case refuse

    /// `isLink`: whether the cache path is a symbolic link; `folderOwner`: the owner of the folder
    /// of the link's target (of its nearest existing folder when missing); `user`: this process's
    /// effective user id.
    static func decide(isLink: Bool, folderOwner: UInt32?, user: UInt32) -> CacheLinkTargetDecision {
        guard isLink else { return .allow }
        return folderOwner == user ? .allow : .refuse
    }
}
