import Foundation

extension Authority {
    /// Parses an AAD authority: `https://<host[:port]>/<tenant>`; extra path, query, fragment and a
    /// trailing slash are dropped, the host is lowercased, the tenant segment keeps its case in
    /// the URL and is lowercased and trimmed as `realm`.
    ///
    /// - Parameter rawTenant: when not `nil`, replaces the tenant of `string` (which must itself
    ///   be a valid AAD authority, as in MSAL).
    /// - Throws: the reference's message for an empty URL, a non-https URL, an `/adfs` or `/tfp/`
    ///   path, a `*.ciamlogin.*` host, or a missing tenant.
    static func aad(_ string: String, rawTenant: String? = nil, correlationId: UUID? = nil) throws -> Authority {
        let parts = try AuthorityURLParts.parse(string, correlationId: correlationId)
        let authority = try aad(parts, correlationId: correlationId)
        guard let rawTenant else { return authority }
        guard !rawTenant.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw AuthorityError.invalidParameter(AuthorityError.missingAADTenant, correlationId: correlationId)
        }
        return try authority.withTenant(rawTenant, correlationId: correlationId)
    }

    static func aad(_ parts: AuthorityURLParts, correlationId: UUID?) throws -> Authority {
        let first = parts.firstSegmentLowercased
        if first == "adfs" {
            throw AuthorityError.invalidParameter(AuthorityError.aadWithADFS, correlationId: correlationId)
        }
        if first == "tfp" {
            throw AuthorityError.invalidParameter(AuthorityError.aadWithB2C, correlationId: correlationId)
        }
        if isCIAMHost(parts) {
            throw AuthorityError.invalidParameter(AuthorityError.aadWithCIAM, correlationId: correlationId)
        }
        guard let segment = parts.segments.first else {
            throw AuthorityError.invalidParameter(AuthorityError.missingAADTenant, correlationId: correlationId)
        }
        let realm = ASCII.trimmed(ASCII.percentDecoded(segment).lowercased())
        guard !realm.isEmpty else {
            throw AuthorityError.invalidParameter(AuthorityError.missingAADTenant, correlationId: correlationId)
        }
        let normalized = AuthorityURLParts(
            scheme: parts.scheme, host: parts.host, port: parts.port, segments: [segment])
        return Authority(
            kind: .aad(AADTenantType(realm: realm)),
            parts: normalized,
            urlString: normalized.urlString(segments: [segment]),
            realm: realm
        )
    }

    /// A `*.ciamlogin.*` host: at least three labels, the second `ciamlogin`.
    static func isCIAMHost(_ parts: AuthorityURLParts) -> Bool {
        let labels = parts.hostLabels
        return labels.count >= 3 && labels[1].lowercased() == "ciamlogin"
    }

    /// A `*.b2clogin.*` host: at least three labels, the second `b2clogin`.
    static func isB2CLoginHost(_ parts: AuthorityURLParts) -> Bool {
        let labels = parts.hostLabels
        return labels.count >= 3 && labels[1].lowercased() == "b2clogin"
    }
}
