import Foundation

/// The messages and errors of authority parsing. Messages that MSAL for iOS/macOS has are quoted
/// verbatim (reference §3); the others are ours and say what to do.
enum AuthorityError {
    static let emptyAuthority = "'authority' is a required parameter and must not be nil or empty."
    static let httpsRequired = "authority must use HTTPS."
    static let missingAADTenant = "authority must have AAD tenant."
    static let aadWithADFS = "Trying to initialize AAD authority with ADFS authority url."
    static let aadWithB2C = "Trying to initialize AAD authority with B2C authority url."
    static let aadWithCIAM = "Trying to initialize AAD authority with CIAM authority url."
    static let notB2C = "It is not B2C authority."
    static let b2cSegments =
        "B2C authority should have at least 3 segments in the path (i.e. https://<host>/tfp/<tenant>/<policy>/...)"
    static let notCIAM = "It is not CIAM authority."
    static let ciamSegments =
        "CIAM authority should have at least 3 segments in the path (i.e. https://<tenant>.ciamlogin.com...)"
    static let notADFS = "It is not ADFS authority."
    static let invalidEnvironment = "Invalid environment provided"
    static let rawTenantNotAllowed =
        "Invalid MSALAudienceType provided. You can only provide rawTenant when using MSALAzureADMyOrgOnlyAudience."
    static let rawTenantRequired =
        "Invalid MSALAudienceType provided. You must provide rawTenant when using MSALAzureADMyOrgOnlyAudience."

    static let notAURL =
        "'authority' is not a valid URL. Pass an https URL such as https://login.microsoftonline.com/common."
    static let missingHost =
        "authority must have a host. Pass an https URL such as https://login.microsoftonline.com/common."
    static let ciamCustomDomainWithoutTenant =
        "A CIAM authority on a custom domain must name the tenant in its path "
        + "(i.e. https://<custom-domain>/<tenant>.onmicrosoft.com)."

    static func invalidPort(_ port: Int) -> String {
        "authority has an invalid port \(port). Use a port between 1 and 65535, or none for the default."
    }

    static func loopbackHTTPNotKnown(_ url: String) -> String {
        "authority must use HTTPS. An http authority on a loopback host (\(url)) is allowed only when it is "
            + "listed in knownAuthorities of MSALPublicClientApplicationConfig; add it there, or use https."
    }

    static func tenantNotSupported(_ kind: String) -> String {
        "A \(kind) authority has no tenant to replace. Pass the authority with the tenant you need."
    }

    static let invalidTenant =
        "The tenant must not be empty and must not contain '/', '?' or '#'. Pass a tenant id or domain name."

    /// An invalid-parameter error (-50000 with internal code -42000).
    static func invalidParameter(_ message: String, correlationId: UUID? = nil) -> NSError {
        MSALErrors.make(.internalErrorInvalidParameter, message, ErrorDetails(correlationId: correlationId))
    }
}
