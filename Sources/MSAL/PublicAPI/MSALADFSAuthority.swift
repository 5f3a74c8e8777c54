public import Foundation

/// An AD FS authority, `https://<adfs host>/adfs`. Unlike MSAL for iOS/macOS, which refuses AD FS,
/// this library signs in through the server's `.well-known/openid-configuration`; the account's
/// home account id is then the id_token's `sub`.
public final class MSALADFSAuthority: MSALAuthority, @unchecked Sendable {
    override init(model: Authority) {
        super.init(model: model)
    }

    /// An AD FS authority for `url` (normalized to `https://<host>/adfs`).
    ///
    /// - Throws: an invalid-parameter error when the URL is empty or not https, or when its path
    ///   does not start with `/adfs` ("It is not ADFS authority.").
    public init(url: URL) throws {
        super.init(model: try Authority.adfs(url.absoluteString))
    }
}
