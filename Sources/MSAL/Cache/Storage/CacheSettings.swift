/// The cache settings an application uses, snapshotted from ``MSALCacheConfig``.
struct CacheSettings: Sendable {
    enum Location: Sendable {
        case memory
        /// `isDefault`: the group's default file, whose folder is kept at mode 0700.
        case file(path: String, isDefault: Bool)
        case custom(any MSALCacheStorage)
    }

    var location: Location
    var encryptionKey: [UInt8]?
    /// Seconds.
    var lockTimeout: Double = 10
}
