import Foundation

/// The rules for an RFC 8707 resource indicator (`resource` on the authorize and token requests).
///
/// It must be an absolute URI without a fragment (RFC 8707 §2). Microsoft Entra ID, Azure AD B2C
/// and CIAM authorities refuse it: their v2.0 endpoints name the resource by the scope
/// (`<resource>/.default`), and answer a `resource` parameter with an error.
enum ResourceIndicator {
    /// Why an indicator cannot be sent.
    enum Problem: Error, Equatable {
        /// Not an absolute URI (no scheme), or empty.
        case notAbsolute
        /// Has a fragment.
        case hasFragment
        /// The authority is Microsoft Entra ID, B2C or CIAM.
        case refusedByAuthority
    }

    /// The problem with sending `resource` to `authority`, or `nil` when it may be sent (or there
    /// is none).
    static func problem(_ resource: String?, for authority: Authority) -> Problem? {
        guard let resource else { return nil }
        guard let components = URLComponents(string: resource), let scheme = components.scheme, !scheme.isEmpty
        else { return .notAbsolute }
        guard components.fragment == nil else { return .hasFragment }
        switch authority.kind {
        case .aad, .b2c, .ciam: return .refusedByAuthority
        case .adfs, .oidc: return nil
        }
    }

    /// Throws -50000 with -42000 when ``problem(_:for:)`` finds one.
    static func check(_ resource: String?, for authority: Authority, correlationId: UUID) throws {
        guard let problem = problem(resource, for: authority) else { return }
        let message: String
        switch problem {
        case .notAbsolute: message = "The resource indicator is not an absolute URI (RFC 8707)."
        case .hasFragment: message = "The resource indicator has a fragment, which RFC 8707 does not allow."
        case .refusedByAuthority:
            message =
                "\(authority.kind.name) authorities refuse an RFC 8707 resource indicator: request the scope "
                + "<resource>/.default instead, and leave resourceIndicator unset."
        }
        throw MSALErrors.make(.internalErrorInvalidParameter, message, ErrorDetails(correlationId: correlationId))
    }
}
