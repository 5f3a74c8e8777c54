public import Foundation

/// An authority: the URL of the identity provider (and tenant) that signs users in and issues
/// tokens. Create one of the subclasses (``MSALAADAuthority``, ``MSALB2CAuthority``,
/// ``MSALCIAMAuthority``, ``MSALADFSAuthority``, ``MSALOIDCAuthority``), or let
/// ``authority(with:)`` pick the kind from the URL.
///
/// An authority is immutable and safe to share between threads. Authorities are equal when they
/// are of the same kind with the same normalized ``url``: that is how `knownAuthorities` entries
/// are matched.
///
/// `https` is required. `http` is accepted only on a loopback host (127.0.0.1, ::1, localhost),
/// and such an authority only works when it is also listed in `knownAuthorities` (for tests and
/// emulators).
public class MSALAuthority: @unchecked Sendable, Hashable, CustomStringConvertible {
    // @unchecked: the only stored properties are immutable Sendable values, and subclasses add none.

    /// The normalized authority URL, such as `https://login.microsoftonline.com/contoso.com`.
    public let url: URL

    /// The parsed authority the library works with.
    let model: Authority

    init(model: Authority) {
        self.model = model
        self.url = model.url
    }

    /// The authority for `url`, of the kind the URL denotes:
    ///
    /// - `https://<host>/tfp/<tenant>/<policy>` → ``MSALB2CAuthority``;
    /// - `https://<host>/adfs` → ``MSALADFSAuthority``;
    /// - `https://<tenant>.ciamlogin.com[/...]` → ``MSALCIAMAuthority``;
    /// - `https://<tenant>.b2clogin.com/<tenant>/<policy>` → ``MSALB2CAuthority``;
    /// - any other URL with a tenant in its path (`https://login.microsoftonline.com/common`), or a
    ///   Microsoft login host → ``MSALAADAuthority``;
    /// - a host that is not a Microsoft login host, without a path (`https://accounts.example.com`)
    ///   → ``MSALOIDCAuthority``. MSAL for iOS/macOS refuses such URLs. For an OpenID Connect issuer
    ///   with a path (`https://idp.example.com/realms/demo`) create ``MSALOIDCAuthority`` yourself.
    ///
    /// - Throws: an `NSError` in ``MSALErrorDomain`` (code ``MSALError/internal``, internal code
    ///   ``MSALInternalError/internalErrorInvalidParameter``) describing what is wrong with the URL.
    public static func authority(with url: URL) throws -> MSALAuthority {
        let model = try Authority.detect(url.absoluteString)
        return wrap(model)
    }

    /// The public authority object of the right subclass for `model`.
    static func wrap(_ model: Authority) -> MSALAuthority {
        switch model.kind {
        case .aad: MSALAADAuthority(model: model)
        case .b2c: MSALB2CAuthority(model: model)
        case .ciam: MSALCIAMAuthority(model: model)
        case .adfs: MSALADFSAuthority(model: model)
        case .oidc: MSALOIDCAuthority(model: model)
        }
    }

    /// The URL as a string.
    public var description: String { model.urlString }

    public static func == (lhs: MSALAuthority, rhs: MSALAuthority) -> Bool {
        lhs.model == rhs.model
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(model)
    }
}
