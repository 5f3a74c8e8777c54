/// An endpoint of the emulator, for counters, fault injection and the request log.
public enum EmulatorEndpoint: String, Sendable, Hashable, CaseIterable {
    /// `/{tenant}/discovery/instance`.
    case instanceDiscovery
    /// `.../v2.0/.well-known/openid-configuration` and `/adfs/.well-known/openid-configuration`.
    case openIDConfiguration
    /// `.../discovery/v2.0/keys` (JWKS).
    case keys
    /// `.../oauth2/v2.0/authorize`.
    case authorize
    /// `.../oauth2/v2.0/token`.
    case token
    /// `.../oauth2/v2.0/devicecode`.
    case deviceCode
    /// `.../oauth2/v2.0/logout`.
    case logout
    /// Any path the emulator does not serve (answered 404).
    case unknown
}

/// A `grant_type` of the token endpoint.
public enum EmulatorGrantType: String, Sendable, Hashable, CaseIterable {
    /// `authorization_code`.
    case authorizationCode = "authorization_code"
    /// `refresh_token`.
    case refreshToken = "refresh_token"
    /// `urn:ietf:params:oauth:grant-type:device_code` (RFC 8628).
    case deviceCode = "urn:ietf:params:oauth:grant-type:device_code"
    /// `password` (resource owner password credentials; for seeding benchmarks quickly).
    case password
}
