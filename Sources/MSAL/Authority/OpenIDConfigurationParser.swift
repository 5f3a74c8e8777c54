import Foundation

/// Reads an OpenID Provider configuration document (tenant discovery).
enum OpenIDConfigurationParser {
    /// Parses `data`, the body read from `configurationURL`.
    ///
    /// - Returns: the required `authorization_endpoint`, `token_endpoint` and `issuer`, and the
    ///   optional `end_session_endpoint`, `device_authorization_endpoint` and `jwks_uri`, and
    ///   `response_modes_supported` when it is an array of strings (else `nil`).
    ///   `{tenantid}` in the issuer (AAD's multi-tenant documents) is replaced by the first path
    ///   segment of `configurationURL` (`common` for `.../common/v2.0/.well-known/...`).
    /// - Throws: -50000 with internal -42010 when the document has an `error`; -50000 with internal
    ///   -42600 when it is not a JSON object, a required field is missing or not a string, or an
    ///   endpoint is not an https URL (http is accepted on a loopback host only).
    static func parse(_ data: Data, configurationURL: URL, correlationId: UUID? = nil) throws -> OpenIDConfiguration {
        guard let json = DiscoveryJSON(data) else {
            throw invalidResponse("is not a JSON object", correlationId)
        }
        if json.has("error") {
            let error = json.string("error") ?? "\(json.object["error"] ?? "")"
            let reason = json.string("error_description").map { "\(error): \($0)" } ?? error
            throw MSALErrors.make(
                .internalErrorFailedAuthorityValidation,
                "Reading the OpenID configuration of the authority failed (\(reason)). Check the authority URL "
                    + "and its tenant.",
                ErrorDetails(oauthError: error, correlationId: correlationId)
            )
        }
        let authorization = try endpoint("authorization_endpoint", in: json, correlationId)
        let token = try endpoint("token_endpoint", in: json, correlationId)
        guard var issuer = json.string("issuer"), !issuer.isEmpty else {
            throw invalidResponse("has no issuer string", correlationId)
        }
        if issuer.contains("{tenantid}"), let tenant = Authority.tenant(ofEndpoint: configurationURL) {
            issuer = issuer.replacingOccurrences(of: "{tenantid}", with: tenant)
        }
        return OpenIDConfiguration(
            authorizationEndpoint: authorization,
            tokenEndpoint: token,
            issuer: issuer,
            endSessionEndpoint: try optionalEndpoint("end_session_endpoint", in: json, correlationId),
            deviceAuthorizationEndpoint: try optionalEndpoint("device_authorization_endpoint", in: json, correlationId),
            jwksURI: try optionalEndpoint("jwks_uri", in: json, correlationId),
            responseModesSupported: json.array("response_modes_supported").flatMap(DiscoveryJSON.strings)
        )
    }

    private static func endpoint(_ key: String, in json: DiscoveryJSON, _ correlationId: UUID?) throws -> URL {
        guard let string = json.string(key) else {
            throw invalidResponse("has no \(key) string", correlationId)
        }
        guard let url = DiscoveryURL.validated(string) else {
            throw invalidResponse("has a \(key) that is not an https URL", correlationId)
        }
        return url
    }

    private static func optionalEndpoint(_ key: String, in json: DiscoveryJSON, _ correlationId: UUID?) throws -> URL? {
        guard json.has(key) else { return nil }
        return try endpoint(key, in: json, correlationId)
    }

    private static func invalidResponse(_ problem: String, _ correlationId: UUID?) -> NSError {
        MSALErrors.make(
            .internalErrorInvalidResponse,
            "The OpenID configuration of the authority \(problem). Check that the authority URL points to an "
                + "OpenID Connect provider; retry later if it does.",
            ErrorDetails(correlationId: correlationId)
        )
    }
}
