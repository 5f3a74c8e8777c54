public import Foundation

/// Any OpenID Connect provider, by its issuer URL (`https://accounts.example.com`,
/// `https://idp.example.com/realms/demo`). Endpoints come from
/// `<issuer>/.well-known/openid-configuration`; there is no instance discovery and no client_info,
/// and the account's home account id is the id_token's `sub`. MSAL for iOS/macOS has no such type.
public final class MSALOIDCAuthority: MSALAuthority, @unchecked Sendable {
    override init(model: Authority) {
        super.init(model: model)
    }

    /// An authority for the issuer `issuer`. The path is kept; a trailing slash, the query and the
    /// fragment are dropped and the host is lowercased.
    ///
    /// - Throws: an invalid-parameter error when the URL is empty or not https.
    public init(issuer: URL) throws {
        super.init(model: try Authority.oidc(issuer: issuer.absoluteString))
    }

    /// The same as ``init(issuer:)``.
    public convenience init(url: URL) throws {
        try self.init(issuer: url)
    }
}
