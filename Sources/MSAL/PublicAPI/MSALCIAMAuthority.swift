public import Foundation

/// A Microsoft Entra External ID (CIAM) authority: `https://<tenant>.ciamlogin.com` (which stands
/// for `https://<tenant>.ciamlogin.com/<tenant>.onmicrosoft.com`), `https://<tenant>.ciamlogin.com/<tenant-id>`,
/// or a custom domain with the tenant in its path.
public final class MSALCIAMAuthority: MSALAuthority, @unchecked Sendable {
    override init(model: Authority) {
        super.init(model: model)
    }

    /// A CIAM authority for `url`, custom domains included (the same as
    /// `init(url: url, validateFormat: false)`).
    ///
    /// - Throws: an invalid-parameter error when the URL is empty or not https, or a custom domain
    ///   without the tenant in its path.
    public convenience init(url: URL) throws {
        try self.init(url: url, validateFormat: false)
    }

    /// A CIAM authority for `url`.
    ///
    /// - Parameters:
    ///   - url: the authority URL, such as `https://contoso.ciamlogin.com`.
    ///   - validateFormat: `true` to require a `<tenant>.ciamlogin.<tld>` host.
    /// - Throws: as ``init(url:)``; with `validateFormat`, MSAL's message when the host has fewer
    ///   than three labels or its second label is not `ciamlogin`.
    public init(url: URL, validateFormat: Bool) throws {
        super.init(model: try Authority.ciam(url.absoluteString, validateFormat: validateFormat))
    }
}
