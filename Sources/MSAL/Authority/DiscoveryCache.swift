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
    /// URLs share it): from memory or the persisted cache while unexpired and still `isCacheable`,
    /// else from `fetch`, which runs once however many callers ask at the same time. A fetched
    /// body is kept only when `isCacheable` says it may be.
    ///
    /// A kept body is checked again when it is used, because the rules may be stricter than when
    /// it was written (or another program wrote it): one that fails is dropped and fetched anew.
    func body(
        forKey key: String,
        isCacheable: @escaping @Sendable (Data) -> Bool,
        fetch: @escaping @Sendable () async throws -> Data
    ) async throws -> Data {
        if let cached = cachedBody(for: key, isCacheable: isCacheable) { return cached }
        return try await fetches.run(key) { [self] in
            if let cached = cachedBody(for: key, isCacheable: isCacheable) { return cached }
            let body = try await fetch()
            if isCacheable(body) {
                let entry = DiscoveryCacheEntry(body: body, expiresOn: now().addingTimeInterval(lifetime))
                state.withLock { $0.entries[key] = entry }
                storage?.saveDiscoveryEntry(entry, forKey: key)
            }
            return body
        }.value
    }

    /// An unexpired, still acceptable body from memory, loading the persisted entries on first
    /// use. A persisted entry lives at most ``lifetime`` from now, whatever expiry the file gives.
    private func cachedBody(for key: String, isCacheable: (Data) -> Bool) -> Data? {
        let persisted: [String: DiscoveryCacheEntry]? =
            state.withLock { $0.loadedPersisted } ? nil : storage?.loadDiscoveryEntries()
        let current = now()
        let latest = current.addingTimeInterval(lifetime)
        let body: Data? = state.withLock { shared in
            if let persisted, !shared.loadedPersisted {
                shared.loadedPersisted = true
                for (key, var entry) in persisted where shared.entries[key] == nil {
                    entry.expiresOn = min(entry.expiresOn, latest)
                    shared.entries[key] = entry
                }
            }
            guard let entry = shared.entries[key], entry.expiresOn > current else { return nil }
            return entry.body
        }
        guard let body else { return nil }
        guard isCacheable(body) else {
            Log.warning("A kept discovery document is no longer acceptable; it is fetched again")
            state.withLock { _ = $0.entries.removeValue(forKey: key) }
            return nil
        }
        return body
    }

    /// Forgets every in-memory entry (the persisted ones are reloaded on next use).
    func removeAll() {
        state.withLock {
            $0.entries.removeAll()
            $0.loadedPersisted = false
        }
    }
}
