/// The Microsoft login hosts MSAL trusts (reference §3, `MSIDAADNetworkConfiguration.m`): instance
/// discovery is sent to the authority's own host when it is one of them, else to
/// `login.microsoftonline.com`.
enum TrustedAuthorityHosts {
    static let all: [String] = [
        "login.windows.net",
        "login.microsoftonline.us",
        "login.chinacloudapi.cn",
        "login.partner.microsoftonline.cn",
        "login.microsoftonline.de",
        "login.sovcloud-identity.fr",
        "login.sovcloud-identity.de",
        "login.sovcloud-identity.sg",
        "login.microsoftonline.com",
        "login-us.microsoftonline.com",
        "login.usgovcloudapi.net",
    ]

    private static let set = Set(all)

    /// The host discovery goes to when the authority's own host is not trusted.
    static let defaultDiscoveryHost = "login.microsoftonline.com"

    /// Whether `host` (lowercased, without port) is trusted.
    static func contains(_ host: String) -> Bool {
        set.contains(host.lowercased())
    }
}
