import Foundation

extension Authority {
    /// Parses a CIAM (Microsoft Entra External ID) authority.
    ///
    /// `https://<t>.ciamlogin.com` (with or without a trailing slash) becomes
    /// `https://<t>.ciamlogin.com/<t>.onmicrosoft.com`; otherwise the first path segment is kept
    /// (`https://<t>.ciamlogin.com/<tenant-id>`). `realm` is that segment.
    ///
    /// - Parameter validateFormat: when `true`, the host must have at least three labels, the second
    ///   being `ciamlogin`. When `false` (what `MSALCIAMAuthority(url:)` uses), a custom domain is
    ///   accepted, and it must then name the tenant in its path.
    static func ciam(_ string: String, validateFormat: Bool, correlationId: UUID? = nil) throws -> Authority {
        let parts = try AuthorityURLParts.parse(string, correlationId: correlationId)
        return try ciam(parts, validateFormat: validateFormat, correlationId: correlationId)
    }

    static func ciam(_ parts: AuthorityURLParts, validateFormat: Bool, correlationId: UUID?) throws -> Authority {
        let labels = parts.hostLabels
        if validateFormat {
            guard labels.count >= 3 else {
                throw AuthorityError.invalidParameter(AuthorityError.ciamSegments, correlationId: correlationId)
            }
            guard labels[1].lowercased() == "ciamlogin" else {
                throw AuthorityError.invalidParameter(AuthorityError.notCIAM, correlationId: correlationId)
            }
        }
        let segment: String
        if let first = parts.segments.first {
            segment = first
        } else if isCIAMHost(parts) {
            segment = "\(labels[0]).onmicrosoft.com"
        } else {
            throw AuthorityError.invalidParameter(
                AuthorityError.ciamCustomDomainWithoutTenant, correlationId: correlationId)
        }
        let normalized = AuthorityURLParts(
            scheme: parts.scheme, host: parts.host, port: parts.port, segments: [segment])
        return Authority(
            kind: .ciam,
            parts: normalized,
            urlString: normalized.urlString(segments: [segment]),
            realm: segment.removingPercentEncoding ?? segment
        )
    }
}
