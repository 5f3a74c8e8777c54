/// An application registration: its client id, redirect URIs, the permissions it lists per
/// resource (what a `/.default` request is granted), and its FOCI family.
public struct EmulatorClient: Sendable, Hashable {
    /// The application (client) id.
    public var clientId: String
    /// Registered redirect URIs. A loopback URI without a port (`http://localhost`,
    /// `http://127.0.0.1`) accepts any port, as Entra does for native apps (RFC 8252 §7.3).
    public var redirectURIs: [String]
    /// Registered permissions: resource (`https://graph.microsoft.com`) → scope names
    /// (`User.Read`): the only resource scopes the app may ask for (others get `invalid_scope`,
    /// AADSTS70011, unless ``EntraEmulator/acceptsUnregisteredScopes``). A `/.default` request for
    /// the resource is granted exactly these.
    public var permissions: [String: [String]]
    /// The family id (`"1"`) of a family-of-client-ids (FOCI) app, whose refresh tokens other
    /// family members may redeem; `nil` for other apps.
    public var familyId: String?

    /// Creates a registration.
    public init(
        clientId: String,
        redirectURIs: [String],
        permissions: [String: [String]] = [:],
        familyId: String? = nil
    ) {
        self.clientId = clientId
        self.redirectURIs = redirectURIs
        self.permissions = permissions
        self.familyId = familyId
    }

    /// Microsoft Graph's resource URI.
    public static let graph = "https://graph.microsoft.com"

    /// The default application: loopback, `msauth` and native-client redirect URIs; Graph
    /// `User.Read` and `Mail.Read`, `api://contoso-api` `access_as_user`, and the Contoso B2C
    /// API's `read` (`https://contosob2c.onmicrosoft.com/api/read`).
    public static let sample = EmulatorClient(
        clientId: "0b7f3c2e-4a1d-4e6b-9c8f-5d2a7e1b3c9f",
        redirectURIs: [
            "http://localhost",
            "http://127.0.0.1",
            "msauth.com.example.app://auth",
            "https://login.microsoftonline.com/common/oauth2/nativeclient",
        ],
        permissions: [
            graph: ["User.Read", "Mail.Read"], "api://contoso-api": ["access_as_user"],
            "https://contosob2c.onmicrosoft.com/api": ["read"],
        ]
    )
    /// A first FOCI family member.
    public static let familyAppOne = EmulatorClient(
        clientId: "3a8e5d7c-1b2f-4c6a-9e8d-0f1a2b3c4d51",
        redirectURIs: ["http://localhost", "msauth.com.example.one://auth"],
        permissions: [graph: ["User.Read"]],
        familyId: "1"
    )
    /// A second FOCI family member.
    public static let familyAppTwo = EmulatorClient(
        clientId: "4b9f6e8d-2c3a-4d7b-8f9e-1a2b3c4d5e62",
        redirectURIs: ["http://localhost", "msauth.com.example.two://auth"],
        permissions: [graph: ["User.Read", "Calendars.Read"]],
        familyId: "1"
    )

    /// The applications of a default emulator.
    public static let defaults: [EmulatorClient] = [sample, familyAppOne, familyAppTwo]
}
