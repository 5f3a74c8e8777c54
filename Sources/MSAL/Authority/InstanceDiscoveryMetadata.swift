import Foundation

/// A parsed instance discovery response: the tenant discovery endpoint and the alias records,
/// keyed by every alias (lowercased `host[:port]`).
struct InstanceDiscoveryMetadata: Sendable, Equatable {
    /// Where to read the OpenID configuration (`tenant_discovery_endpoint`).
    let tenantDiscoveryEndpoint: URL
    /// The records under each of their aliases; the requested environment is always present.
    let records: [String: AuthorityAliasRecord]

    /// The record for `environment`, if discovery named it.
    func record(for environment: String) -> AuthorityAliasRecord? {
        records[environment.lowercased()]
    }

    /// The host to send requests to for `environment` (`preferred_network`, else itself).
    func preferredNetwork(for environment: String) -> String {
        record(for: environment)?.preferredNetwork ?? environment.lowercased()
    }

    /// The host to cache tokens under for `environment` (`preferred_cache`, else itself).
    func preferredCache(for environment: String) -> String {
        record(for: environment)?.preferredCache ?? environment.lowercased()
    }

    /// The environments to look the cache up with, in MSAL's order (see
    /// ``AuthorityAliasRecord/cacheLookupEnvironments(for:)``); just `environment` when unknown.
    func cacheLookupEnvironments(for environment: String) -> [String] {
        record(for: environment)?.cacheLookupEnvironments(for: environment) ?? [environment.lowercased()]
    }

    /// Every alias of `environment`'s cloud (the "RT from another cloud" guard checks a token
    /// endpoint's host against these).
    func aliases(of environment: String) -> [String] {
        record(for: environment)?.aliases ?? [environment.lowercased()]
    }
}
