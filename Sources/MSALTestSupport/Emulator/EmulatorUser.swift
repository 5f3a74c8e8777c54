/// A person who can sign in to the emulator.
///
/// The user's home tenant gives `client_info` (`uid` = ``objectId``, `utid` = ``homeTenantId``);
/// ``guestProfiles`` lets the same person sign in to other tenants with another object id, as a
/// B2B guest does.
public struct EmulatorUser: Sendable, Hashable {
    /// The sign-in name (`preferred_username`), matched case-insensitively against `login_hint`.
    public var username: String
    /// The display name (`name`).
    public var displayName: String
    /// The object id (`oid`) in the home tenant.
    public var objectId: String
    /// The home tenant id.
    public var homeTenantId: String
    /// The password the password grant (ROPC) accepts.
    public var password: String
    /// Guest profiles: tenant id → the user's object id in that tenant.
    public var guestProfiles: [String: String]

    /// Creates a user.
    public init(
        username: String,
        displayName: String,
        objectId: String,
        homeTenantId: String,
        password: String = "P@ssw0rd!",
        guestProfiles: [String: String] = [:]
    ) {
        self.username = username
        self.displayName = displayName
        self.objectId = objectId.lowercased()
        self.homeTenantId = homeTenantId.lowercased()
        self.password = password
        self.guestProfiles = Dictionary(uniqueKeysWithValues: guestProfiles.map { ($0.key.lowercased(), $0.value) })
    }

    /// The user's object id in `tenantId`, or `nil` when the user has no profile there.
    public func objectId(inTenant tenantId: String) -> String? {
        let tenant = tenantId.lowercased()
        return tenant == homeTenantId ? objectId : guestProfiles[tenant]
    }

    /// The default user: Alice in Contoso, also a guest in Fabrikam.
    public static let alice = EmulatorUser(
        username: "alice@contoso.onmicrosoft.com",
        displayName: "Alice Smith",
        objectId: "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
        homeTenantId: EmulatorTenant.contoso.id,
        guestProfiles: [EmulatorTenant.fabrikam.id: "7f6e5d4c-3b2a-4190-8f7e-6d5c4b3a2910"]
    )
    /// Bob in Contoso.
    public static let bob = EmulatorUser(
        username: "bob@contoso.onmicrosoft.com",
        displayName: "Bob Jones",
        objectId: "1b2c3d4e-5f6a-4b7c-9d8e-0f1a2b3c4d5e",
        homeTenantId: EmulatorTenant.contoso.id
    )
    /// Carol, a personal Microsoft account (consumers tenant).
    public static let carol = EmulatorUser(
        username: "carol@outlook.com",
        displayName: "Carol Personal",
        objectId: "00000000-0000-0000-66f3-3332eca7ea81",
        homeTenantId: EmulatorTenant.microsoftAccountsTenantId
    )
    /// Dave, a local account of the B2C tenant.
    public static let dave = EmulatorUser(
        username: "dave@example.com",
        displayName: "Dave Customer",
        objectId: "2c3d4e5f-6a7b-4c8d-8e9f-1a2b3c4d5e6f",
        homeTenantId: EmulatorTenant.contosoB2C.id
    )
    /// Erin, a customer of the CIAM tenant.
    public static let erin = EmulatorUser(
        username: "erin@example.org",
        displayName: "Erin External",
        objectId: "3d4e5f6a-7b8c-4d9e-9f0a-2b3c4d5e6f7a",
        homeTenantId: EmulatorTenant.contosoCIAM.id
    )
    /// Frank, a user of the AD FS farm.
    public static let frank = EmulatorUser(
        username: "frank@contoso.com",
        displayName: "Frank Onprem",
        objectId: "4e5f6a7b-8c9d-4e0f-8a1b-3c4d5e6f7a8b",
        homeTenantId: EmulatorTenant.contosoADFS.id
    )

    /// The users of a default emulator.
    public static let defaults: [EmulatorUser] = [alice, bob, carol, dave, erin, frank]
}
