/// A Microsoft cloud as instance discovery describes it: the host that requests should go to
/// (`preferred_network`), the host tokens are cached under (`preferred_cache`), and every host name
/// that is the same cloud (`aliases`).
///
/// The emulator answers for every alias of its ``EntraEmulator/Configuration/clouds`` (through
/// ``EntraEmulator/connectTo``), and lists all of them in its instance-discovery metadata.
public struct EmulatorCloud: Sendable, Hashable {
    /// `preferred_network`: the host requests are sent to.
    public var preferredNetwork: String
    /// `preferred_cache`: the host tokens are cached under.
    public var preferredCache: String
    /// `aliases`: every host name of this cloud, `preferredNetwork` included.
    public var aliases: [String]
    /// `cloud_instance_name` of the cloud's openid-configuration (`microsoftonline.com`).
    public var instanceName: String

    /// Creates a cloud. `aliases` should contain `preferredNetwork` and `preferredCache`.
    public init(preferredNetwork: String, preferredCache: String, aliases: [String], instanceName: String) {
        self.preferredNetwork = preferredNetwork
        self.preferredCache = preferredCache
        self.aliases = aliases
        self.instanceName = instanceName
    }

    /// Whether `host` (no port) is one of the aliases, compared case-insensitively.
    public func contains(host: String) -> Bool {
        aliases.contains { $0.lowercased() == host.lowercased() }
    }

    /// The worldwide public cloud.
    public static let worldwide = EmulatorCloud(
        preferredNetwork: "login.microsoftonline.com",
        preferredCache: "login.windows.net",
        aliases: ["login.microsoftonline.com", "login.windows.net", "login.microsoft.com", "sts.windows.net"],
        instanceName: "microsoftonline.com"
    )

    /// Microsoft Azure operated by 21Vianet (China).
    public static let china = EmulatorCloud(
        preferredNetwork: "login.partner.microsoftonline.cn",
        preferredCache: "login.partner.microsoftonline.cn",
        aliases: ["login.partner.microsoftonline.cn", "login.chinacloudapi.cn"],
        instanceName: "partner.microsoftonline.cn"
    )

    /// Azure Germany (legacy).
    public static let germany = EmulatorCloud(
        preferredNetwork: "login.microsoftonline.de",
        preferredCache: "login.microsoftonline.de",
        aliases: ["login.microsoftonline.de"],
        instanceName: "microsoftonline.de"
    )

    /// Azure US Government.
    public static let usGovernment = EmulatorCloud(
        preferredNetwork: "login.microsoftonline.us",
        preferredCache: "login.microsoftonline.us",
        aliases: ["login.microsoftonline.us", "login.usgovcloudapi.net"],
        instanceName: "microsoftonline.us"
    )

    /// The US Government host of the worldwide cloud (`login-us.microsoftonline.com`).
    public static let usGovernmentWorldwide = EmulatorCloud(
        preferredNetwork: "login-us.microsoftonline.com",
        preferredCache: "login-us.microsoftonline.com",
        aliases: ["login-us.microsoftonline.com"],
        instanceName: "microsoftonline.com"
    )

    /// Every cloud above, in the order Entra's discovery metadata lists them.
    public static let all: [EmulatorCloud] = [worldwide, china, germany, usGovernment, usGovernmentWorldwide]
}
