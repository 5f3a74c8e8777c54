public import Foundation

/// Storage that an app provides for the token cache, for apps that keep secrets in a store of
/// their own (a secret service, a vault, a database). Set it on ``MSALCacheConfig/customStorage``.
///
/// The library hands over and takes back the whole cache document (MSAL Python's JSON format,
/// encrypted with ``MSALCacheConfig/encryptionKey`` when one is set). It loads the document when
/// the cache is first used and again before every change, then saves the changed document.
/// Calls come from any thread, one at a time per application object; serializing access across
/// processes is the storage's job.
///
/// ```swift
/// final class VaultStorage: MSALCacheStorage {
///     func load() throws -> Data? { try vault.read("msal") }
///     func save(_ data: Data) throws { try vault.write("msal", data) }
/// }
/// config.cacheConfig.customStorage = VaultStorage()
/// ```
public protocol MSALCacheStorage: AnyObject, Sendable {
    /// The stored document, or `nil` when nothing was stored yet. A thrown error fails the
    /// account or token call that needed the cache.
    func load() throws -> Data?

    /// Replaces the stored document with `data`. A thrown error fails the call that changed the cache.
    func save(_ data: Data) throws

    /// What this storage holds, as a name that is the same on every machine sharing it and
    /// different for every other cache (`MSALRedisCacheStorage` of the `MSALRedisCache` product uses its
    /// cache name). With ``MSALCacheConfig/encryptionKey`` set, the encrypted document is bound
    /// to it: a document copied from another cache does not decrypt. The default is `""`.
    var cacheIdentity: String { get }
}

extension MSALCacheStorage {
    /// `""`: the documents of two storages that keep the default and share a key can be swapped.
    public var cacheIdentity: String { "" }
}
