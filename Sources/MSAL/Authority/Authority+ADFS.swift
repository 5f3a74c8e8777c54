import Foundation

extension Authority {
    /// Parses an AD FS authority, `https://<host[:port]>/adfs` (the first segment `adfs` in any
    /// case; anything after it is dropped). `realm` is `adfs`, as MSAL Python writes it.
    ///
    /// - Throws: "It is not ADFS authority." when the first segment is not `adfs`.
    static func adfs(_ string: String, correlationId: UUID? = nil) throws -> Authority {
        let parts = try AuthorityURLParts.parse(string, correlationId: correlationId)
        return try adfs(parts, correlationId: correlationId)
    }

    static func adfs(_ parts: AuthorityURLParts, correlationId: UUID?) throws -> Authority {
        guard parts.firstSegmentLowercased == "adfs", let segment = parts.segments.first else {
            throw AuthorityError.invalidParameter(AuthorityError.notADFS, correlationId: correlationId)
        }
        let normalized = AuthorityURLParts(
            scheme: parts.scheme, host: parts.host, port: parts.port, segments: [segment])
        return Authority(
            kind: .adfs,
            parts: normalized,
            urlString: normalized.urlString(segments: [segment]),
            realm: "adfs"
        )
    }
}
