import Foundation

/// Where a request goes: which endpoint, for which tenant path (and B2C policy).
struct EmulatorRoute: Sendable, Equatable {
    /// How the tenant appeared in the path.
    enum Style: Sendable, Equatable {
        /// `/{tenant}/...` (workforce, consumers, CIAM, or a B2C tenant's b2clogin-style path).
        case tenant
        /// `/tfp/{tenant}/{policy}/...`.
        case tfp
        /// `/adfs/...`.
        case adfs
    }

    var endpoint: EmulatorEndpoint
    var style: Style
    /// The tenant path segment as sent (`common`, a GUID, a domain; `adfs`).
    var tenant: String
    var policy: String?

    /// The path prefix that selects this tenant (and policy), as endpoints in documents repeat it.
    func prefix(tenantSegment: String? = nil) -> String {
        let segment = tenantSegment ?? tenant
        switch style {
        case .adfs: return "/adfs"
        case .tfp: return "/tfp/\(segment)/\(policy ?? "")"
        case .tenant: return policy.map { "/\(segment)/\($0)" } ?? "/\(segment)"
        }
    }

    /// Routes a path; `isB2CTenant` tells whether a first segment names a B2C tenant (for
    /// b2clogin-style paths `/{tenant}/{policy}/...`).
    static func parse(path: String, isB2CTenant: (String) -> Bool) -> EmulatorRoute {
        let segments = path.split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) }
        guard let first = segments.first else { return EmulatorRoute(endpoint: .unknown, style: .tenant, tenant: "") }
        if first.lowercased() == "adfs" {
            return EmulatorRoute(endpoint: adfsEndpoint(Array(segments.dropFirst())), style: .adfs, tenant: "adfs")
        }
        if first.lowercased() == "tfp", segments.count >= 3 {
            return EmulatorRoute(
                endpoint: endpoint(Array(segments.dropFirst(3))), style: .tfp, tenant: segments[1], policy: segments[2])
        }
        var rest = Array(segments.dropFirst())
        var policy: String?
        if let next = rest.first, !["v2.0", "oauth2", "discovery", ".well-known"].contains(next.lowercased()),
            isB2CTenant(first)
        {
            policy = next
            rest.removeFirst()
        }
        return EmulatorRoute(endpoint: endpoint(rest), style: .tenant, tenant: first, policy: policy)
    }

    private static func endpoint(_ rest: [String]) -> EmulatorEndpoint {
        switch rest.map({ $0.lowercased() }) {
        case ["v2.0", ".well-known", "openid-configuration"], [".well-known", "openid-configuration"]:
            return .openIDConfiguration
        case ["discovery", "v2.0", "keys"], ["discovery", "keys"]: return .keys
        case ["discovery", "instance"]: return .instanceDiscovery
        case ["oauth2", "v2.0", "authorize"]: return .authorize
        case ["oauth2", "v2.0", "token"]: return .token
        case ["oauth2", "v2.0", "devicecode"]: return .deviceCode
        case ["oauth2", "v2.0", "logout"]: return .logout
        default: return .unknown
        }
    }

    private static func adfsEndpoint(_ rest: [String]) -> EmulatorEndpoint {
        switch rest.map({ $0.lowercased() }) {
        case [".well-known", "openid-configuration"]: return .openIDConfiguration
        case ["discovery", "keys"]: return .keys
        case ["oauth2", "authorize"]: return .authorize
        case ["oauth2", "token"]: return .token
        case ["oauth2", "devicecode"]: return .deviceCode
        case ["oauth2", "logout"]: return .logout
        default: return .unknown
        }
    }
}
