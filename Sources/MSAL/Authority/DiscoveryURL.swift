import Foundation

/// The rule for URLs found in discovery documents: absolute `https` with a host, or `http` on a
/// loopback host (tests and emulators).
enum DiscoveryURL {
    /// The URL for `string` when it follows the rule, else `nil`.
    static func validated(_ string: String) -> URL? {
        guard let components = URLComponents(string: string),
            let scheme = components.scheme?.lowercased(),
            let host = components.percentEncodedHost?.lowercased(), !host.isEmpty
        else { return nil }
        if let port = components.port, !(1...65_535).contains(port) {
            return nil
        }
        guard scheme == "https" || (scheme == "http" && AuthorityURLParts.loopbackHosts.contains(host)) else {
            return nil
        }
        return components.url
    }
}
