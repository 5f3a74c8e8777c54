/// Which accounts an AAD authority signs in, for
/// ``MSALAADAuthority/init(cloudInstance:audienceType:rawTenant:)``.
public enum MSALAudienceType: Int, Sendable, CaseIterable {
    /// Work, school and personal Microsoft accounts (`common`).
    case azureADAndPersonalMicrosoftAccountAudience = 0
    /// Work and school accounts of any organization (`organizations`).
    case azureADMultipleOrgsAudience = 1
    /// Accounts of one organization only: pass its tenant id or domain as `rawTenant`.
    case azureADMyOrgOnlyAudience = 2
    /// Personal Microsoft accounts only (`consumers`).
    case personalMicrosoftAccountAudience = 3

    /// The tenant path segment of the audience, `nil` for ``azureADMyOrgOnlyAudience`` (whose
    /// tenant is the `rawTenant` given).
    var tenantSegment: String? {
        switch self {
        case .azureADAndPersonalMicrosoftAccountAudience: "common"
        case .azureADMultipleOrgsAudience: "organizations"
        case .azureADMyOrgOnlyAudience: nil
        case .personalMicrosoftAccountAudience: "consumers"
        }
    }
}
