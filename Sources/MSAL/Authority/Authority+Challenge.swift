import Foundation

extension Authority {
    /// The authority a Microsoft Entra challenge names: its `authorization_uri` without the
    /// endpoint path (`/oauth2/authorize`, `/oauth2/v2.0/authorize`, and the token endpoints),
    /// so `https://login.microsoftonline.com/<tenant>/oauth2/authorize` gives
    /// `https://login.microsoftonline.com/<tenant>`. A URI without a tenant segment takes the
    /// challenge's `realm` when that is a plain tenant name or id (Entra sends one, or `""`).
    ///
    /// - Returns: `nil` unless the URI is an absolute `https` URL with a host and no user
    ///   information, query or fragment.
    static func challengeAuthorityURL(authorizationURI: String, realm: String?) -> URL? {
        guard let components = URLComponents(string: authorizationURI),
            components.scheme?.lowercased() == "https", let host = components.host, !host.isEmpty,
            components.user == nil, components.password == nil, components.query == nil, components.fragment == nil
        else { return nil }
        var segments = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: true)
            .map(String.init)
        for suffix in [
            ["oauth2", "v2.0", "authorize"], ["oauth2", "v2.0", "token"], ["oauth2", "authorize"],
            ["oauth2", "token"],
        ]
        where segments.count >= suffix.count && segments.suffix(suffix.count).map({ $0.lowercased() }) == suffix {
            segments.removeLast(suffix.count)
            break
        }
        if segments.isEmpty, let realm, isTenantName(realm) {
            segments = [realm]
        }
        var result = URLComponents()
        result.scheme = "https"
        result.host = host
        result.port = components.port
        result.percentEncodedPath = segments.isEmpty ? "" : "/" + segments.joined(separator: "/")
        return result.url
    }

    /// Whether `text` may be a tenant segment: a GUID or domain-like name, nothing that changes
    /// the URL's structure.
    private static func isTenantName(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 256
            && text.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
            }
    }
}
