/// A directory the emulator hosts: a workforce tenant, the Microsoft-account (consumers) tenant,
/// an Azure AD B2C tenant, a CIAM (External ID) tenant, or an AD FS farm.
public struct EmulatorTenant: Sendable, Hashable {
    /// What kind of directory a tenant is; it decides its paths, issuer and token shapes.
    public enum Kind: Sendable, Hashable {
        /// A Microsoft Entra workforce tenant (`/{tenant}/...`).
        case workforce
        /// The Microsoft-account tenant behind `/consumers`.
        case microsoftAccounts
        /// An Azure AD B2C tenant: `/tfp/{tenant}/{policy}/...` or b2clogin-style
        /// `https://{name}.b2clogin.com/{tenant}/{policy}/...`; any policy name is accepted.
        case b2c
        /// A CIAM (Microsoft Entra External ID) tenant: `https://{name}.ciamlogin.com/{tenant}/...`.
        case ciam
        /// An AD FS farm, served at `/adfs` (only one per emulator is reachable).
        case adfs
    }

    /// The tenant id (`tid`): a lowercase GUID for Entra tenants.
    public var id: String
    /// Domain names that also select the tenant in a path (`contoso.onmicrosoft.com`); the first
    /// is its primary domain.
    public var domains: [String]
    /// The kind of directory.
    public var kind: Kind
    /// The cloud the tenant lives in: the `preferred_network` host returned as
    /// `cloud_instance_host_name` to instance-aware requests.
    public var cloudHost: String

    /// Creates a tenant.
    public init(id: String, domains: [String], kind: Kind = .workforce, cloudHost: String = "login.microsoftonline.com")
    {
        self.id = id.lowercased()
        self.domains = domains
        self.kind = kind
        self.cloudHost = cloudHost
    }

    /// The first label of the primary domain (`contoso` for `contoso.onmicrosoft.com`), as used in
    /// b2clogin and ciamlogin host names.
    public var shortName: String {
        String((domains.first ?? id).split(separator: ".").first ?? "")
    }

    /// Whether `segment` (a path segment: id or domain) names this tenant, case-insensitively.
    func isNamed(_ segment: String) -> Bool {
        let name = segment.lowercased()
        return id == name || domains.contains { $0.lowercased() == name }
    }

    /// The MSA consumers tenant id, `9188040d-6c67-4c5b-b112-36a304b66dad`.
    public static let microsoftAccountsTenantId = "9188040d-6c67-4c5b-b112-36a304b66dad"

    /// A workforce tenant, `contoso.onmicrosoft.com`.
    public static let contoso = EmulatorTenant(
        id: "8d2f5e1a-3b4c-4d6e-9f70-a1b2c3d4e5f6", domains: ["contoso.onmicrosoft.com", "contoso.com"])
    /// A second workforce tenant, `fabrikam.onmicrosoft.com`, where Alice is a guest.
    public static let fabrikam = EmulatorTenant(
        id: "2b7e9c4d-5a6f-4e8b-8c1d-f0e1d2c3b4a5", domains: ["fabrikam.onmicrosoft.com"])
    /// The Microsoft-account (consumers) tenant.
    public static let microsoftAccounts = EmulatorTenant(
        id: microsoftAccountsTenantId, domains: ["consumers.onmicrosoft.com"], kind: .microsoftAccounts)
    /// A B2C tenant, `contosob2c.onmicrosoft.com` (host `contosob2c.b2clogin.com`).
    public static let contosoB2C = EmulatorTenant(
        id: "5e3a7c9b-1d2f-4a6b-8e0c-7f9a1b3c5d7e", domains: ["contosob2c.onmicrosoft.com"], kind: .b2c)
    /// A CIAM tenant, `contosociam.onmicrosoft.com` (host `contosociam.ciamlogin.com`).
    public static let contosoCIAM = EmulatorTenant(
        id: "6c4b8a2e-9d1f-4b3a-a5c7-e2f4a6b8c0d1", domains: ["contosociam.onmicrosoft.com"], kind: .ciam)
    /// An AD FS farm, host `adfs.contoso.com`, served at `/adfs`.
    public static let contosoADFS = EmulatorTenant(id: "adfs", domains: ["adfs.contoso.com"], kind: .adfs)

    /// The tenants of a default emulator.
    public static let defaults: [EmulatorTenant] = [
        contoso, fabrikam, microsoftAccounts, contosoB2C, contosoCIAM, contosoADFS,
    ]
}
