/// Storage of the whole cache document outside any file (a keyring item), whose changes are
/// announced by touching a signal file, as msal-extensions' persistences do. The cache
/// coordinates around the signal file as around a cache file, so this library's processes and
/// Python apps with msal-extensions on one item never lose each other's writes: every change holds
/// `<signal>.lock` and `<signal>.lockfile`, reads the item again and saves it (``save`` touches the
/// signal file); a read loads the item again only when the signal file changed; refreshes are
/// serialised on `<signal>.refresh.lock`.
package protocol SignalledCacheStorage: MSALCacheStorage {
    /// The absolute path of the signal file; its folder is made (mode 0700) when missing.
    var signalFilePath: String { get }
}
