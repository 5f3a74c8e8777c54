/// One cloud's entry of instance discovery: the host to send requests to, the host the cache
/// stores tokens under, and every alias of that cloud (all lowercased `host[:port]`).
struct AuthorityAliasRecord: Sendable, Hashable {
    /// The host for network requests (`preferred_network`).
    let preferredNetwork: String
    /// The host tokens are cached under (`preferred_cache`).
    let preferredCache: String
    /// Every host of this cloud (`aliases`).
    let aliases: [String]

    /// The environments to look the cache up with, in MSAL's order: `preferred_cache`, then the
    /// requested environment when different, then the other aliases (each once).
    func cacheLookupEnvironments(for environment: String) -> [String] {
        var result = [preferredCache]
        let requested = environment.lowercased()
        if requested != preferredCache {
            result.append(requested)
        }
        for alias in aliases where !result.contains(alias) {
            result.append(alias)
        }
        return result
    }
}
