import Foundation
import MSAL

/// What `--scopes` and `--resource` ask a token for: its scopes, and the RFC 8707 resource
/// indicator sent with them.
///
/// `--resource` names the API the token is for; how it is sent depends on the authority.
/// Microsoft Entra ID, Azure AD B2C and CIAM name an API by its scope `<resource>/.default` (Azure
/// CLI's `--resource`) and refuse the `resource` parameter. AD FS and other OpenID Connect
/// authorities take it as the RFC 8707 `resource` parameter, beside the scopes of `--scopes`.
struct TokenTarget: Equatable {
    /// The scopes to request.
    var scopes: [String]
    /// The RFC 8707 resource indicator (``MSALTokenParameters/resourceIndicator``), or `nil`.
    var resourceIndicator: String?

    /// How `--resource` is sent to an authority.
    enum ResourceForm: Equatable {
        /// As the scope `<resource>/.default`.
        case defaultScope
        /// As the RFC 8707 `resource` parameter.
        case indicator
    }

    /// How `authority` takes `--resource`; `nil` is msal's default authority (Entra ID).
    static func resourceForm(for authority: MSALAuthority?) -> ResourceForm {
        switch authority {
        case nil, is MSALAADAuthority, is MSALB2CAuthority, is MSALCIAMAuthority: .defaultScope
        default: .indicator
        }
    }

    /// Why `value` is not a resource indicator msal sends, or `nil` when it is one: an absolute
    /// `https` URI with a host and without a fragment (RFC 8707 §2), and nothing a shell or a
    /// terminal could mangle (spaces, control characters).
    static func indicatorProblem(_ value: String) -> String? {
        guard !value.isEmpty else { return "is empty" }
        guard
            !value.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F })
        else { return "holds a space or a control character" }
        guard let components = URLComponents(string: value), let scheme = components.scheme else {
            return "is not an absolute URI"
        }
        guard scheme.lowercased() == "https" else { return "is not an https URI" }
        guard let host = components.host, !host.isEmpty else { return "has no host" }
        guard components.fragment == nil else { return "has a fragment (#...), which RFC 8707 does not allow" }
        return nil
    }

    /// The target of `arguments`' `--scopes` and `--resource` for `authority`. `scopesRequired`:
    /// whether the command needs one of them (`msal token`); `msal login` may sign in without.
    static func parse(
        _ arguments: CommandLineArguments, authority: MSALAuthority?, scopesRequired: Bool
    ) throws(CommandLineArguments.UsageError) -> TokenTarget {
        typealias UsageError = CommandLineArguments.UsageError
        let scopes = ApplicationOptions.scopes(arguments.values["scopes"])
        let resources = arguments.allValues["resource"] ?? []
        guard resources.count <= 1 else {
            throw UsageError(description: "give one --resource: one resource indicator is sent")
        }
        guard let resource = resources.first else {
            guard !scopes.isEmpty || !scopesRequired else {
                throw UsageError(description: "--scopes (or --resource) is required")
            }
            return TokenTarget(scopes: scopes)
        }
        switch resourceForm(for: authority) {
        case .defaultScope:
            guard scopes.isEmpty else {
                throw UsageError(description: "give --scopes or --resource, not both")
            }
            guard !resource.isEmpty, !resource.contains(where: \.isWhitespace) else {
                throw UsageError(description: "--resource '\(resource)' is not a resource URI")
            }
            return TokenTarget(scopes: [resource.hasSuffix("/") ? resource + ".default" : resource + "/.default"])
        case .indicator:
            if let problem = indicatorProblem(resource) {
                throw UsageError(
                    description: "--resource '\(resource)' \(problem): a resource indicator is an absolute https "
                        + "URI without a fragment (RFC 8707)")
            }
            return TokenTarget(scopes: scopes, resourceIndicator: resource)
        }
    }
}
