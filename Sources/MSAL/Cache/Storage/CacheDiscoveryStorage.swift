import Foundation

/// Keeps discovery results in the cache document's own section `MSALDiscovery` (`{"<url>":
/// {"response": "<body>", "expires_on": "<epoch>"}}`), so a short-lived process started many times
/// resolves its authority once. Other libraries keep the section untouched.
struct CacheDiscoveryStorage: DiscoveryCacheStorage {
    static let sectionName = "MSALDiscovery"

    let cache: TokenCache

    func loadDiscoveryEntries() async -> [String: DiscoveryCacheEntry] {
        guard let raw = try? await cache.read({ $0.unknownSection(named: Self.sectionName) }),
            let object = (try? JSONValue(parsing: raw))?.objectValue
        else { return [:] }
        var entries: [String: DiscoveryCacheEntry] = [:]
        for (key, value) in object {
            guard let response = value["response"]?.stringValue,
                let expires = value["expires_on"]?.stringValue.flatMap(Double.init)
            else { continue }
            entries[key] = DiscoveryCacheEntry(
                body: Data(response.utf8), expiresOn: Date(timeIntervalSince1970: expires))
        }
        return entries
    }

    func saveDiscoveryEntry(_ entry: DiscoveryCacheEntry, forKey key: String) async {
        do {
            try await cache.modify { store in
                var object =
                    store.unknownSection(named: Self.sectionName)
                    .flatMap { (try? JSONValue(parsing: $0))?.objectValue } ?? [:]
                // Expired entries stay a while: they stand in for discovery that fails offline.
                let oldest = Date().timeIntervalSince1970 - DiscoveryCache.staleLimit
                object = object.filter { _, value in
                    (value["expires_on"]?.stringValue.flatMap(Double.init) ?? 0) > oldest
                }
                object[key] = .object([
                    "response": .string(String(decoding: entry.body, as: UTF8.self)),
                    "expires_on": .string(String(Int64(entry.expiresOn.timeIntervalSince1970))),
                ])
                store.setUnknownSection(named: Self.sectionName, rawValue: JSONValue.object(object).serializedString())
            }
        } catch {
            Log.warning("Could not persist a discovery result: \((error as NSError).code)")
        }
    }
}
