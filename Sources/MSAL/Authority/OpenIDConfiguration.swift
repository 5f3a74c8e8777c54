import Foundation

/// The parts of an OpenID Provider configuration (`.well-known/openid-configuration`) the
/// library uses.
struct OpenIDConfiguration: Sendable, Hashable {
    /// `authorization_endpoint`.
    let authorizationEndpoint: URL
    /// `token_endpoint`.
    let tokenEndpoint: URL
    /// `issuer`, with `{tenantid}` replaced by the tenant of the configuration's URL.
    let issuer: String
    /// `end_session_endpoint`, when the provider has one.
    let endSessionEndpoint: URL?
    /// `device_authorization_endpoint`, when the provider supports the device code flow.
    let deviceAuthorizationEndpoint: URL?
    /// `jwks_uri`, when present.
    let jwksURI: URL?
    /// `response_modes_supported`, when it is an array of strings (`nil` otherwise).
    var responseModesSupported: [String]? = nil
}
