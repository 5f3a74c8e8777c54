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
    func loadDiscoveryEntries() async -> [String: DiscoveryCacheEntry]
    /// Persists `entry` under `key`, keeping other entries.
    func saveDiscoveryEntry(_ entry: DiscoveryCacheEntry, forKey key: String) async
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
    ///
    /// When the fetch fails on the network and a body expired less than ``staleLimit`` ago is
    /// kept, that body is used (and a warning logged): an offline machine keeps working with
    /// endpoints that rarely change.
    func body(
        forKey key: String,
        isCacheable: @escaping @Sendable (Data) -> Bool,
        fetch: @escaping @Sendable () async throws -> Data
    ) async throws -> Data {
        if let cached = await cachedBody(for: key, isCacheable: isCacheable) { return cached }
        return try await fetches.run(key) { [self] in
            if let cached = await cachedBody(for: key, isCacheable: isCacheable) { return cached }
            let body: Data
            do {
                body = try await fetch()
            } catch {
                let failure = error as NSError
                guard failure.domain == NSURLErrorDomain, failure.code != NSURLErrorCancelled,
                    let stale = await keptBody(forKey: key, isCacheable: isCacheable)
                else { throw error }
                let days = Int(Self.staleLimit / 86_400)
                Log.warning(
                    "Discovery failed on the network (\(failure.code)); using the kept document, expired less than \(days) days ago"
                )
                return stale
            }
            if isCacheable(body) {
                let entry = DiscoveryCacheEntry(body: body, expiresOn: now().addingTimeInterval(lifetime))
                state.withLock { $0.entries[key] = entry }
                await storage?.saveDiscoveryEntry(entry, forKey: key)
            }
            return body
        }.value
    }

    /// How long after its expiry a kept body may still stand in for a fetch that failed on the
    /// network (and be kept in the cache file for that).
    static let staleLimit: TimeInterval = 7 * 86_400

    /// A kept, still acceptable body for `key`, expired less than ``staleLimit`` ago or not at all.
    func keptBody(forKey key: String, isCacheable: (Data) -> Bool) async -> Data? {
        _ = await cachedBody(for: key, isCacheable: isCacheable)  // loads the persisted entries
        let oldest = now().addingTimeInterval(-Self.staleLimit)
        guard let entry = state.withLock({ $0.entries[key] }), entry.expiresOn > oldest, isCacheable(entry.body)
        else { return nil }
        return entry.body
    }

    /// An unexpired, still acceptable body from memory, loading the persisted entries on first
    /// use. A persisted entry lives at most ``lifetime`` from now, whatever expiry the file gives.
    private func cachedBody(for key: String, isCacheable: (Data) -> Bool) async -> Data? {
        let persisted: [String: DiscoveryCacheEntry]? =
            state.withLock { $0.loadedPersisted } ? nil : await storage?.loadDiscoveryEntries()
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
