/// The home account identifier of an account: `<objectId>.<tenantId>` in the home tenant.
public final class MSALAccountId: Sendable, Hashable, CustomStringConvertible {
    /// The whole identifier, `<objectId>.<tenantId>`: stable for the account; store it to find the
    /// account again with ``MSALPublicClientApplication/account(forIdentifier:)``.
    public let identifier: String?
    /// The user's object id in the home tenant (for Azure AD B2C, `<oid>-<policy>`).
    public let objectId: String?
    /// The home tenant id.
    public let tenantId: String?

    init(identifier: String?, objectId: String?, tenantId: String?) {
        self.identifier = identifier
        self.objectId = objectId
        self.tenantId = tenantId
    }

    /// Splits a home account id `<uid>.<utid>` at its last dot.
    convenience init(homeAccountId: String) {
        if let dot = homeAccountId.utf8.lastIndex(of: UInt8(ascii: ".")) {
            self.init(
                identifier: homeAccountId,
                objectId: String(homeAccountId[..<dot]),
                tenantId: String(homeAccountId[homeAccountId.index(after: dot)...]))
        } else {
            self.init(identifier: homeAccountId, objectId: homeAccountId, tenantId: nil)
        }
    }

    public static func == (lhs: MSALAccountId, rhs: MSALAccountId) -> Bool {
        lhs.identifier == rhs.identifier
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(identifier)
    }

    public var description: String { "MSALAccountId(\(identifier == nil ? "nil" : "<redacted>"))" }
}
