import Foundation

/// What the tenant segment of an AAD authority names.
enum AADTenantType: Sendable, Hashable {
    /// `common`: work, school and personal Microsoft accounts.
    case common
    /// `organizations`: work and school accounts only.
    case organizations
    /// `consumers`: personal Microsoft accounts only.
    case consumers
    /// A tenant id (GUID).
    case guid
    /// A tenant domain name (or any other tenant identifier that is not a GUID).
    case domain

    /// The type of a realm (already lowercased and trimmed).
    init(realm: String) {
        switch realm {
        case "common": self = .common
        case "organizations": self = .organizations
        case "consumers": self = .consumers
        default: self = UUID(uuidString: realm) == nil ? .domain : .guid
        }
    }

    /// `true` for common, organizations and consumers: the authority names no single tenant, so
    /// silent requests for an account are re-targeted to its home tenant.
    var isTenantless: Bool {
        switch self {
        case .common, .organizations, .consumers: true
        case .guid, .domain: false
        }
    }
}
