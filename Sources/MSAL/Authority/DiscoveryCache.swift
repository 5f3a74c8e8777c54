import Foundation
import MSALNative

/// A discovery response kept for reuse: the raw body as the server sent it, and when it expires.
///
/// Raw bodies (not parsed values) are kept so a persisted entry goes through the same parser and
/// validation as a fresh one.
struct DiscoveryCacheEntry: Sendable, Equatable {
    /// The response body (a JSON object, possibly an error object such as `invalid_instance`).
    var body: Data
    /// When the entry stops being used.
    var expiresOn: Date
}

/// Where discovery results survive the process: the token cache file, so a short-lived command
/// started a thousand times makes one discovery call, not a thousand.
protocol DiscoveryCacheStorage: Sendable {
    /// Every persisted entry, keyed by the lowercased request URL.
    func loadDiscoveryEntries() -> [String: DiscoveryCacheEntry]
    /// Persists `entry` under `key`, keeping other entries.
    func saveDiscoveryEntry(_ entry: DiscoveryCacheEntry, forKey key: String)
}

/// The in-memory layer over an optional persistent one, with an expiry and one request in
/// flight per URL (concurrent resolutions of one authority share it).
final class DiscoveryCache: Sendable {
    private struct State {
        var entries: [String: DiscoveryCacheEntry] = [:]
        var loadedPersisted = false
    }

    private let state = Locked(State())
    private let fetches = SingleFlight<String, Data>()
    private let storage: (any DiscoveryCacheStorage)?
    let lifetime: TimeInterval
    let now: @Sendable () -> Date

    init(
        storage: (any DiscoveryCacheStorage)? = nil,
        lifetime: TimeInterval = 24 * 3600,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.storage = storage
        self.lifetime = lifetime
        self.now = now
    }

    /// The body for `key` (a lowercased request URL, or what identifies the answer when several
    /// URLs share it): from memory or the persisted cache while unexpired, else from `fetch`,
    /// which runs once however many callers ask at the same time. A fetched body is kept only
    /// when `fetch` says it may be (`cacheable`).
    func body(
        forKey key: String,
        fetch: @escaping @Sendable () async throws -> (body: Data, cacheable: Bool)
    ) async throws -> Data {
        if let cached = cachedBody(for: key) { return cached }
        return try await fetches.run(key) { [self] in
            if let cached = cachedBody(for: key) { return cached }
            let (body, cacheable) = try await fetch()
            if cacheable {
                let entry = DiscoveryCacheEntry(body: body, expiresOn: now().addingTimeInterval(lifetime))
                state.withLock { $0.entries[key] = entry }
                storage?.saveDiscoveryEntry(entry, forKey: key)
            }
            return body
        }.value
    }

    /// An unexpired body from memory, loading the persisted entries on first use.
    private func cachedBody(for key: String) -> Data? {
        let persisted: [String: DiscoveryCacheEntry]? =
            state.withLock { $0.loadedPersisted } ? nil : storage?.loadDiscoveryEntries()
        let current = now()
        return state.withLock { shared in
            if let persisted, !shared.loadedPersisted {
                shared.loadedPersisted = true
                shared.entries.merge(persisted) { memory, _ in memory }
            }
            guard let entry = shared.entries[key], entry.expiresOn > current else { return nil }
            return entry.body
        }
    }

    /// Forgets every in-memory entry (the persisted ones are reloaded on next use).
    func removeAll() {
        state.withLock {
            $0.entries.removeAll()
            $0.loadedPersisted = false
        }
    }
}
