/// The Microsoft clouds, for ``MSALAADAuthority/init(cloudInstance:audienceType:rawTenant:)``.
/// For another cloud, pass its host to ``MSALAADAuthority/init(environment:audienceType:rawTenant:)``.
public enum MSALAzureCloudInstance: Int, Sendable, CaseIterable {
    /// The worldwide public cloud, `login.microsoftonline.com`.
    case publicCloudInstance = 0
    /// Microsoft Azure operated by 21Vianet (China), `login.chinacloudapi.cn`.
    case chinaCloudInstance = 1
    /// Microsoft Cloud Germany, `login.microsoftonline.de`.
    case germanyCloudInstance = 2
    /// Azure US Government, `login.microsoftonline.us`.
    case usGovernmentCloudInstance = 3
    /// The French sovereign cloud, `login.sovcloud-identity.fr`.
    case franceCloudInstance = 4
    /// The German sovereign cloud (Delos), `login.sovcloud-identity.de`.
    case delosCloudInstance = 5
    /// The Singapore government sovereign cloud, `login.sovcloud-identity.sg`.
    case govSGCloudInstance = 6

    /// The login host of the cloud.
    var environment: String {
        switch self {
        case .publicCloudInstance: "login.microsoftonline.com"
        case .chinaCloudInstance: "login.chinacloudapi.cn"
        case .germanyCloudInstance: "login.microsoftonline.de"
        case .usGovernmentCloudInstance: "login.microsoftonline.us"
        case .franceCloudInstance: "login.sovcloud-identity.fr"
        case .delosCloudInstance: "login.sovcloud-identity.de"
        case .govSGCloudInstance: "login.sovcloud-identity.sg"
        }
    }
}
