import Foundation

extension Authority {
    /// Parses any OpenID Connect issuer (`https://accounts.example.com`,
    /// `https://idp.example.com/realms/demo`): the whole path is kept, without empty segments,
    /// trailing slash, query and fragment; the host is lowercased. `realm` is the first path
    /// segment, or "" when the issuer has no path.
    static func oidc(issuer string: String, correlationId: UUID? = nil) throws -> Authority {
        let parts = try AuthorityURLParts.parse(string, correlationId: correlationId)
        return oidc(parts)
    }

    static func oidc(_ parts: AuthorityURLParts) -> Authority {
        Authority(
            kind: .oidc,
            parts: parts,
            urlString: parts.urlString(segments: parts.segments[...]),
            realm: parts.decodedSegments.first ?? ""
        )
    }
}
