/// How long what the emulator issues stays valid, in seconds of the emulator's clock.
public struct EmulatorTokenLifetimes: Sendable, Hashable {
    /// Access tokens (`expires_in`).
    public var accessToken: Int
    /// Extended lifetime of access tokens (`ext_expires_in`).
    public var extendedAccessToken: Int
    /// When the client should refresh proactively (`refresh_in`), or `nil` to omit it.
    public var refreshIn: Int?
    /// ID tokens (`exp` - `iat`).
    public var idToken: Int
    /// Refresh tokens (inactivity limit; an expired one gets `invalid_grant` AADSTS700082).
    public var refreshToken: Int
    /// Whether token responses state the refresh token's lifetime (`refresh_token_expires_in`),
    /// as Entra does for single-page apps.
    public var statesRefreshTokenExpiry: Bool
    /// Authorization codes.
    public var authorizationCode: Int
    /// Device codes (`expires_in` of the device-code response).
    public var deviceCode: Int

    /// Creates lifetimes; the defaults are Entra's usual values.
    public init(
        accessToken: Int = 3599,
        extendedAccessToken: Int = 3599,
        refreshIn: Int? = nil,
        idToken: Int = 3600,
        refreshToken: Int = 90 * 86400,
        statesRefreshTokenExpiry: Bool = false,
        authorizationCode: Int = 600,
        deviceCode: Int = 900
    ) {
        self.accessToken = accessToken
        self.extendedAccessToken = extendedAccessToken
        self.refreshIn = refreshIn
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.statesRefreshTokenExpiry = statesRefreshTokenExpiry
        self.authorizationCode = authorizationCode
        self.deviceCode = deviceCode
    }
}

/// What the refresh-token grant does with the refresh token it redeems.
public enum EmulatorRefreshTokenRotation: Sendable, Hashable {
    /// Returns the same refresh token again.
    case reuse
    /// Returns a new refresh token; the old one stays valid until it expires (Entra's behaviour).
    case rotate
    /// Returns a new refresh token and revokes the old one (a replay gets `invalid_grant`).
    case rotateAndRevokeOld
}
