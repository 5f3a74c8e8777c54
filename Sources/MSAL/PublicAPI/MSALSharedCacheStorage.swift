public import Foundation

/// The cache document of a ``MSALSharedCacheStorage`` with the version it was stored under.
public struct MSALSharedCacheDocument: Sendable, Equatable {
    /// The stored document, or `nil` when nothing is stored.
    public var data: Data?
    /// The document's version: 0 when nothing is stored, and a different number after every
    /// save (never reused for another document, even after the storage lost its data).
    public var version: UInt64

    /// A document and its version.
    public init(data: Data?, version: UInt64) {
        self.data = data
        self.version = version
    }
}

/// What a compare-and-set save of a `MSALSharedCacheStorage` did.
public enum MSALCacheSaveOutcome: Sendable, Equatable {
    /// The document was stored; it now has `version`.
    case saved(version: UInt64)
    /// Nothing was stored: the stored version was not the expected one (another writer, perhaps
    /// on another machine, saved in between). The library loads the document again, applies its
    /// change to it and saves again.
    case conflict
    /// Nothing was stored, and the change must not be applied again: the refresh lease the save
    /// was made under (``MSALCacheRefreshLease``) is no longer held, so another holder may have
    /// stored a newer result (fencing).
    case fenced
}

/// A cache storage shared by several machines, whose saves are compare-and-set on a version
/// instead of the cross-process file locks of the file cache. Set it on
/// ``MSALCacheConfig/customStorage`` like any ``MSALCacheStorage``; the library sees that it is
/// versioned and then:
///
/// - serves reads from memory while the stored version is unchanged, asking for the version
///   (``storedVersion()``) before a read at most every ``readStaleness`` seconds, and loading the
///   document only when the version changed;
/// - makes every change a read-modify-write: it applies the change to the document of the version
///   it holds and saves with ``save(_:replacingVersion:lease:)``; on ``MSALCacheSaveOutcome/conflict``
///   it loads the newer document and applies the change again (a bounded number of times), so a
///   write never loses another machine's write.
///
/// When the storage also takes refresh leases (``MSALCacheRefreshCoordinating``), a refresh
/// of a token happens once across all the machines sharing the storage.
///
/// The library calls these from any thread, one at a time per application object. The plain
/// ``MSALCacheStorage/load()`` and ``MSALCacheStorage/save(_:)`` are not used for a versioned
/// storage (other programs may call them).
public protocol MSALSharedCacheStorage: MSALCacheStorage {
    /// The stored document and its version (`data` `nil` and version 0 when none).
    func loadVersioned() throws -> MSALSharedCacheDocument

    /// The version of the stored document, 0 when none: cheaper than loading it.
    func storedVersion() throws -> UInt64

    /// Stores `data` if the stored version is still `expected` (0: nothing stored), in one atomic
    /// step. With `lease`, stores only while that refresh lease is still held (else
    /// ``MSALCacheSaveOutcome/fenced``).
    func save(_ data: Data, replacingVersion expected: UInt64, lease: MSALCacheRefreshLease?) throws
        -> MSALCacheSaveOutcome

    /// How many seconds a read may be served from memory without asking for the stored version.
    /// 0 asks before every read (one round trip); more saves the round trip at the price of
    /// seeing other machines' changes that much later.
    var readStaleness: TimeInterval { get }

    /// Seconds after which an account nothing was acquired for is removed from the shared cache;
    /// 0 (the default) keeps every account until it is removed.
    ///
    /// When more than 0, every change the library saves also removes the accounts that lapsed:
    /// those with no access token left to serve, and either nothing acquired for them for this
    /// long (their refresh tokens' `last_modification_time`, their access tokens' `cached_at`),
    /// or every refresh token past the expiry its server gave (`refresh_token_expires_in`), or no
    /// refresh token at all. Their tokens, Account records and account metadata go; entries the
    /// library does not understand, and accounts whose age it cannot tell, stay. Set it to
    /// how long the identity provider keeps an unused refresh token (90 days for Microsoft Entra),
    /// so that a cache that is still in use stays bounded.
    var unusedAccountLifetime: TimeInterval { get }
}

extension MSALSharedCacheStorage {
    /// 0: accounts stay until they are removed.
    public var unusedAccountLifetime: TimeInterval { 0 }
}

/// A refresh lease held in a shared storage (``MSALCacheRefreshCoordinating``).
public struct MSALCacheRefreshLease: Sendable, Equatable {
    /// The refresh it is for.
    public let key: String
    /// The holder's secret token: only the holder can release it, and a save under it is fenced
    /// once the lease is held by another (or expired).
    public let token: String

    /// A lease for `key`, held with `token`.
    public init(key: String, token: String) {
        self.key = key
        self.token = token
    }
}

/// A shared storage that makes one refresh per token across the machines sharing it: before
/// redeeming a refresh token the library takes the token's lease; the other machines wait until
/// it is released (or expires), then read the new tokens from the storage.
///
/// The lease comes in addition to the in-process single flight and, for a file cache, the
/// cross-process refresh lock. A holder that dies lets the lease expire after `duration`; a holder
/// whose lease expired before it saved is fenced (``MSALCacheSaveOutcome/fenced``): its result is
/// returned to its caller but not stored over a newer one. A machine that cannot take the lease
/// within twice ``refreshLeaseDuration`` fails the call (``MSALError/internal``) rather than
/// redeem a refresh token another machine may be redeeming.
public protocol MSALCacheRefreshCoordinating: MSALSharedCacheStorage {
    /// Seconds a lease lasts when its holder neither releases it nor saves (a holder that died).
    /// Machines waiting for a lease wait at most twice this long.
    var refreshLeaseDuration: TimeInterval { get }

    /// Takes the lease for `key` for ``refreshLeaseDuration`` seconds if nobody holds it; `nil`
    /// when another holder has it.
    func acquireRefreshLease(key: String) throws -> MSALCacheRefreshLease?

    /// Releases `lease` if it is still held by its token (compare and delete).
    func releaseRefreshLease(_ lease: MSALCacheRefreshLease) throws
}
