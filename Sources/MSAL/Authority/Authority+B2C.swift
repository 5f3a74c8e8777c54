import Foundation

extension Authority {
    /// Parses a B2C authority.
    ///
    /// - The `/tfp/<tenant>/<policy>` form (the first segment `tfp` in any case and at least three
    ///   segments) is normalized to `https://<host[:port]>/tfp/<tenant>/<policy>`; `realm` is the
    ///   tenant segment and the policy is the third segment.
    /// - With `validateFormat` `false` (what `MSALB2CAuthority(url:)` uses) any other path is
    ///   accepted too, such as `https://contoso.b2clogin.com/contoso.onmicrosoft.com/B2C_1_signin`:
    ///   the URL is kept without query, fragment, empty segments and trailing slash; `realm` is the
    ///   whole path (`/contoso.onmicrosoft.com/B2C_1_signin`, as MSAL); the first segment is taken
    ///   as the tenant and the second as the policy.
    ///
    /// - Throws: with `validateFormat`, "It is not B2C authority." when the path does not start
    ///   with `tfp`, and the reference's message when it has fewer than three segments.
    static func b2c(_ string: String, validateFormat: Bool, correlationId: UUID? = nil) throws -> Authority {
        let parts = try AuthorityURLParts.parse(string, correlationId: correlationId)
        return try b2c(parts, validateFormat: validateFormat, correlationId: correlationId)
    }

    static func b2c(_ parts: AuthorityURLParts, validateFormat: Bool, correlationId: UUID?) throws -> Authority {
        let isTFP = parts.firstSegmentLowercased == "tfp"
        if validateFormat {
            guard isTFP else {
                throw AuthorityError.invalidParameter(AuthorityError.notB2C, correlationId: correlationId)
            }
            guard parts.segments.count >= 3 else {
                throw AuthorityError.invalidParameter(AuthorityError.b2cSegments, correlationId: correlationId)
            }
        }
        let decoded = parts.decodedSegments
        if isTFP && parts.segments.count >= 3 {
            let kept = Array(parts.segments.prefix(3))
            let normalized = AuthorityURLParts(scheme: parts.scheme, host: parts.host, port: parts.port, segments: kept)
            return Authority(
                kind: .b2c(tenant: decoded[1], policy: decoded[2], isTFP: true),
                parts: normalized,
                urlString: normalized.urlString(segments: kept[...]),
                realm: decoded[1]
            )
        }
        return Authority(
            kind: .b2c(tenant: decoded.first, policy: decoded.count >= 2 ? decoded[1] : nil, isTFP: false),
            parts: parts,
            urlString: parts.urlString(segments: parts.segments[...]),
            realm: decoded.isEmpty ? "" : "/" + decoded.joined(separator: "/")
        )
    }
}
