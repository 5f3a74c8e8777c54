public import Foundation

/// An Azure AD B2C authority: a user flow (policy) of a B2C tenant.
///
/// ```swift
/// let authority = try MSALB2CAuthority(
///     url: URL(string: "https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/B2C_1_signupsignin")!)
/// config.knownAuthorities = [authority]
/// ```
///
/// List every B2C authority you use in `knownAuthorities` of the configuration: b2clogin hosts
/// are not validated otherwise.
public final class MSALB2CAuthority: MSALAuthority, @unchecked Sendable {
    override init(model: Authority) {
        super.init(model: model)
    }

    /// A B2C authority for `url`, accepting any path shape (the same as
    /// `init(url: url, validateFormat: false)`): the `/tfp/<tenant>/<policy>` form and the
    /// `https://<tenant>.b2clogin.com/<tenant>.onmicrosoft.com/<policy>` form.
    ///
    /// - Throws: an invalid-parameter error when the URL is empty or not https.
    public convenience init(url: URL) throws {
        try self.init(url: url, validateFormat: false)
    }

    /// A B2C authority for `url`.
    ///
    /// - Parameters:
    ///   - url: the authority URL, with the tenant and the user flow (policy) in its path.
    ///   - validateFormat: `true` to require `https://<host>/tfp/<tenant>/<policy>`.
    /// - Throws: an invalid-parameter error when the URL is empty or not https, and with
    ///   `validateFormat` when the path is not the `/tfp/` form with at least three segments.
    public init(url: URL, validateFormat: Bool) throws {
        super.init(model: try Authority.b2c(url.absoluteString, validateFormat: validateFormat))
    }

    /// The user flow (policy) named in the URL, such as `B2C_1_signupsignin`, if any.
    public var policy: String? { model.b2cPolicy }
}
