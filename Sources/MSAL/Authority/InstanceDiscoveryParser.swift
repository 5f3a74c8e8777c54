import Foundation

/// Reads the response of AAD instance discovery (`/common/discovery/instance`).
///
/// ```json
/// {"tenant_discovery_endpoint": "https://login.microsoftonline.com/common/v2.0/.well-known/openid-configuration",
///  "metadata": [{"preferred_network": "login.microsoftonline.com", "preferred_cache": "login.windows.net",
///                "aliases": ["login.microsoftonline.com", "login.windows.net", "login.microsoft.com"]}]}
/// ```
enum InstanceDiscoveryParser {
    /// The OAuth `error` AAD returns for an authority host it does not know; the resolver caches
    /// it as an invalid record for the environment.
    static let invalidInstance = "invalid_instance"

    /// Parses `data`, the body of the discovery response for `requestedEnvironment`.
    ///
    /// - Returns: the tenant discovery endpoint and one record per metadata entry under each of its
    ///   aliases, plus `{network = cache = requestedEnvironment}` when no entry lists it.
    /// - Throws: -50000 with internal -42010 (failed authority validation) when the body has an
    ///   `error` (``MSALOAuthErrorKey`` holds it, see ``isInvalidInstance(_:)``); -50000 with
    ///   internal -42600 (invalid response) when it is not a JSON object, lacks
    ///   `tenant_discovery_endpoint` (or it breaks `policy`), or has a malformed metadata entry or
    ///   host. Nothing is returned from a response with any bad part.
    static func parse(
        _ data: Data, requestedEnvironment: String, policy: DiscoveryURLPolicy = .httpsOnly,
        correlationId: UUID? = nil
    ) throws -> InstanceDiscoveryMetadata {
        guard let json = DiscoveryJSON(data) else {
            throw invalidResponse("is not a JSON object", correlationId)
        }
        if json.has("error") {
            throw validationError(json, correlationId)
        }
        guard let endpointString = json.string("tenant_discovery_endpoint") else {
            throw invalidResponse("has no tenant_discovery_endpoint string", correlationId)
        }
        let endpoint: URL
        switch policy.check(endpointString) {
        case .success(let url):
            endpoint = url
        case .failure(let violation):
            throw invalidResponse("has a tenant_discovery_endpoint that \(violation.reason)", correlationId)
        }
        var records: [String: AuthorityAliasRecord] = [:]
        if json.has("metadata") {
            guard let entries = json.array("metadata") else {
                throw invalidResponse("has a metadata value that is not an array", correlationId)
            }
            for entry in entries {
                let record = try parseRecord(entry, correlationId)
                for alias in record.aliases {
                    records[alias] = record
                }
            }
        }
        let requested = requestedEnvironment.lowercased()
        if records[requested] == nil {
            records[requested] = AuthorityAliasRecord(
                preferredNetwork: requested, preferredCache: requested, aliases: [requested])
        }
        return InstanceDiscoveryMetadata(tenantDiscoveryEndpoint: endpoint, records: records)
    }

    /// Whether `error` is the `invalid_instance` answer of instance discovery.
    static func isInvalidInstance(_ error: NSError) -> Bool {
        error.domain == MSALErrorDomain && error.userInfo[MSALOAuthErrorKey] as? String == invalidInstance
    }

    private static func parseRecord(_ entry: Any, _ correlationId: UUID?) throws -> AuthorityAliasRecord {
        guard let object = entry as? [String: Any] else {
            throw invalidResponse("has a metadata entry that is not an object", correlationId)
        }
        let json = DiscoveryJSON(object: object)
        guard let network = json.string("preferred_network").flatMap(DiscoveryHost.normalized) else {
            throw invalidResponse("has a metadata entry without a valid preferred_network host", correlationId)
        }
        guard let cache = json.string("preferred_cache").flatMap(DiscoveryHost.normalized) else {
            throw invalidResponse("has a metadata entry without a valid preferred_cache host", correlationId)
        }
        guard let rawAliases = json.array("aliases").flatMap(DiscoveryJSON.strings) else {
            throw invalidResponse("has a metadata entry without an aliases array of strings", correlationId)
        }
        var aliases: [String] = []
        for raw in rawAliases {
            guard let alias = DiscoveryHost.normalized(raw) else {
                throw invalidResponse("has an alias that is not a valid host", correlationId)
            }
            if !aliases.contains(alias) {
                aliases.append(alias)
            }
        }
        return AuthorityAliasRecord(preferredNetwork: network, preferredCache: cache, aliases: aliases)
    }

    private static func validationError(_ json: DiscoveryJSON, _ correlationId: UUID?) -> NSError {
        let error = json.string("error") ?? "\(json.object["error"] ?? "")"
        let description = json.string("error_description")
        let reason = description.map { "\(error): \($0)" } ?? error
        return MSALErrors.make(
            .internalErrorFailedAuthorityValidation,
            "Instance discovery rejected the authority (\(reason)). Check the authority URL, or list the "
                + "authority in knownAuthorities when it is a host you trust.",
            ErrorDetails(oauthError: error, correlationId: correlationId)
        )
    }

    private static func invalidResponse(_ problem: String, _ correlationId: UUID?) -> NSError {
        MSALErrors.make(
            .internalErrorInvalidResponse,
            "The instance discovery response \(problem). Retry later; if it persists, check that the authority "
                + "host is a Microsoft Entra ID endpoint.",
            ErrorDetails(correlationId: correlationId)
        )
    }
}
