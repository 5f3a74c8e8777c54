public import Foundation

/// A Microsoft Entra ID (Azure AD) authority: `https://<cloud host>/<tenant>`, where the tenant
/// is `common`, `organizations`, `consumers`, a tenant id (GUID) or a tenant domain.
///
/// ```swift
/// let authority = try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/contoso.com")!)
/// let gov = try MSALAADAuthority(cloudInstance: .usGovernmentCloudInstance,
///                                audienceType: .azureADMyOrgOnlyAudience, rawTenant: "contoso.us")
/// ```
///
/// The URL is normalized to its host (lowercased, port kept unless 443) and first path segment;
/// anything after the tenant, the query and the fragment are dropped.
public final class MSALAADAuthority: MSALAuthority, @unchecked Sendable {
    override init(model: Authority) {
        super.init(model: model)
    }

    /// An AAD authority for `url`.
    ///
    /// - Throws: an `NSError` in ``MSALErrorDomain`` (``MSALError/internal``, internal code
    ///   ``MSALInternalError/internalErrorInvalidParameter``) when the URL is empty or not https,
    ///   has no tenant, or is an AD FS, B2C or CIAM URL (use the matching class for those).
    public convenience init(url: URL) throws {
        try self.init(url: url, rawTenant: nil)
    }

    /// An AAD authority for `url` with its tenant replaced by `rawTenant` when given.
    ///
    /// - Throws: as ``init(url:)``; also when `rawTenant` is empty or contains `/`, `?` or `#`.
    public init(url: URL, rawTenant: String?) throws {
        super.init(model: try Authority.aad(url.absoluteString, rawTenant: rawTenant))
    }

    /// An AAD authority in one of the Microsoft clouds for an audience.
    ///
    /// - Parameters:
    ///   - cloudInstance: the cloud, such as ``MSALAzureCloudInstance/publicCloudInstance``.
    ///   - audienceType: who may sign in. ``MSALAudienceType/azureADMyOrgOnlyAudience`` needs
    ///     `rawTenant`; the other audiences must not have one.
    ///   - rawTenant: the tenant id or domain for ``MSALAudienceType/azureADMyOrgOnlyAudience``.
    /// - Throws: an invalid-parameter error with MSAL's message when `rawTenant` does not fit the
    ///   audience.
    public convenience init(
        cloudInstance: MSALAzureCloudInstance, audienceType: MSALAudienceType, rawTenant: String?
    ) throws {
        try self.init(environment: cloudInstance.environment, audienceType: audienceType, rawTenant: rawTenant)
    }

    /// An AAD authority on the login host `environment` (such as `login.microsoftonline.com`, or a
    /// `host:port` of a test server) for an audience.
    ///
    /// - Throws: "Invalid environment provided" for a blank environment, and as
    ///   ``init(cloudInstance:audienceType:rawTenant:)``.
    public convenience init(environment: String, audienceType: MSALAudienceType, rawTenant: String?) throws {
        let environment = environment.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !environment.isEmpty, DiscoveryHost.normalized(environment) != nil else {
            throw AuthorityError.invalidParameter(AuthorityError.invalidEnvironment)
        }
        let tenant: String
        let blankTenant = rawTenant?.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ?? true
        if let rawTenant, !blankTenant {
            guard audienceType == .azureADMyOrgOnlyAudience else {
                throw AuthorityError.invalidParameter(AuthorityError.rawTenantNotAllowed)
            }
            tenant = rawTenant
        } else {
            guard let segment = audienceType.tenantSegment else {
                throw AuthorityError.invalidParameter(AuthorityError.rawTenantRequired)
            }
            tenant = segment
        }
        let base = try Authority.aad("https://\(environment)/common")
        self.init(model: try base.withTenant(tenant))
    }
}
