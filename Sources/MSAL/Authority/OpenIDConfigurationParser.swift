import Foundation

/// Reads an OpenID Provider configuration document (tenant discovery).
enum OpenIDConfigurationParser {
    /// Parses `data`, the body read from `configurationURL`.
    ///
    /// - Parameter policy: where the endpoints may point (``DiscoveryURLPolicy``).
    /// - Returns: the required `authorization_endpoint`, `token_endpoint` and `issuer`, and the
    ///   optional `end_session_endpoint`, `device_authorization_endpoint` and `jwks_uri`, and
    ///   `response_modes_supported` when it is an array of strings (else `nil`).
    ///   `{tenantid}` in the issuer (AAD's multi-tenant documents) is replaced by the first path
    ///   segment of `configurationURL` (`common` for `.../common/v2.0/.well-known/...`).
    /// - Throws: -50000 with internal -42010 when the document has an `error`; -50000 with internal
    ///   -42600 when it is not a JSON object, a required field is missing or not a string, or an
    ///   endpoint breaks `policy` (the message names the document and the field).
    static func parse(
        _ data: Data, configurationURL: URL, policy: DiscoveryURLPolicy = .httpsOnly, correlationId: UUID? = nil
    ) throws -> OpenIDConfiguration {
        guard let json = DiscoveryJSON(data) else {
            throw invalidResponse("is not a JSON object", correlationId)
        }
        if json.has("error") {
            let error = json.text("error")
            let reason = json.string("error_description").map { "\(error): \($0)" } ?? error
            throw MSALErrors.make(
                .internalErrorFailedAuthorityValidation,
                "Reading the OpenID configuration of the authority failed (\(reason)). Check the authority URL "
                    + "and its tenant.",
                ErrorDetails(oauthError: error, correlationId: correlationId)
            )
        }
        let reader = EndpointReader(
            json: json, policy: policy, documentURL: configurationURL, correlationId: correlationId)
        let authorization = try reader.required("authorization_endpoint")
        let token = try reader.required("token_endpoint")
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
            endSessionEndpoint: try reader.optional("end_session_endpoint"),
            deviceAuthorizationEndpoint: try reader.optional("device_authorization_endpoint"),
            jwksURI: try reader.optional("jwks_uri"),
            responseModesSupported: json.array("response_modes_supported").flatMap(DiscoveryJSON.strings)
        )
    }

    /// Reads the endpoint fields of one document under one policy.
    private struct EndpointReader {
        let json: DiscoveryJSON
        let policy: DiscoveryURLPolicy
        let documentURL: URL
        let correlationId: UUID?

        func required(_ key: String) throws -> URL {
            guard let string = json.string(key) else {
                throw invalidResponse("has no \(key) string", correlationId)
            }
            switch policy.check(string) {
            case .success(let url):
                return url
            case .failure(let violation):
                throw MSALErrors.make(
                    .internalErrorInvalidResponse,
                    "The OpenID configuration at \(documentURL.withoutQuery) was refused: its \(key) "
                        + "(\(TerminalText.quoted(string, limit: 200))) \(violation.reason). Nothing was sent to it.",
                    ErrorDetails(correlationId: correlationId))
            }
        }

        func optional(_ key: String) throws -> URL? {
            guard json.has(key) else { return nil }
            return try required(key)
        }
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
