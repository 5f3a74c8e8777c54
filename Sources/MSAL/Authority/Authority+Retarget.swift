import Foundation

extension Authority {
    /// The same authority for another tenant: AAD `https://<host>/<tenant>`, CIAM likewise, B2C
    /// `/tfp/<tenant>/<policy>` (or the first segment of its other form). Used for MSAL's
    /// `rawTenant` and for re-targeting common/organizations/consumers to an account's home tenant.
    ///
    /// - Throws: an invalid-parameter error for an empty tenant or one containing `/`, `?` or `#`,
    ///   and for AD FS and OIDC authorities, which have no tenant to replace.
    func withTenant(_ tenant: String, correlationId: UUID? = nil) throws -> Authority {
        let trimmed = ASCII.trimmed(tenant)
        guard !trimmed.isEmpty, !trimmed.contains(where: { "/?#".contains($0) }) else {
            throw AuthorityError.invalidParameter(AuthorityError.invalidTenant, correlationId: correlationId)
        }
        let segment: String
        if trimmed.utf8.allSatisfy(ASCII.isUnreserved) {
            // A tenant id or domain, which percent-encoding leaves as it is.
            segment = trimmed
        } else {
            var allowed = CharacterSet.urlPathAllowed
            allowed.remove(charactersIn: "/;")
            segment = trimmed.addingPercentEncoding(withAllowedCharacters: allowed) ?? trimmed
        }
        switch kind {
        case .aad:
            return try Authority.aad(replacingSegment(at: 0, with: segment), correlationId: correlationId)
        case .ciam:
            return try Authority.ciam(
                replacingSegment(at: 0, with: segment), validateFormat: false, correlationId: correlationId)
        case .b2c(_, _, let isTFP):
            guard isTFP || !parts.segments.isEmpty else {
                throw AuthorityError.invalidParameter(
                    AuthorityError.tenantNotSupported(kind.name), correlationId: correlationId)
            }
            return try Authority.b2c(
                replacingSegment(at: isTFP ? 1 : 0, with: segment), validateFormat: isTFP,
                correlationId: correlationId)
        case .adfs, .oidc:
            throw AuthorityError.invalidParameter(
                AuthorityError.tenantNotSupported(kind.name), correlationId: correlationId)
        }
    }

    /// The same authority on another `host[:port]`: the instance discovery's `preferred_network`
    /// for requests, or the `cloud_instance_host_name` of an instance-aware response.
    func withEnvironment(_ environment: String, correlationId: UUID? = nil) throws -> Authority {
        let moved = try parts.replacingHostWithPort(environment, correlationId: correlationId)
        switch kind {
        case .aad: return try Authority.aad(moved, correlationId: correlationId)
        case .b2c(_, _, let isTFP): return try Authority.b2c(moved, validateFormat: isTFP, correlationId: correlationId)
        case .ciam: return try Authority.ciam(moved, validateFormat: false, correlationId: correlationId)
        case .adfs: return try Authority.adfs(moved, correlationId: correlationId)
        case .oidc: return Authority.oidc(moved)
        }
    }

    private func replacingSegment(at index: Int, with segment: String) -> AuthorityURLParts {
        var segments = parts.segments
        if index < segments.count {
            segments[index] = segment
        } else {
            segments.append(segment)
        }
        return AuthorityURLParts(scheme: parts.scheme, host: parts.host, port: parts.port, segments: segments)
    }
}
