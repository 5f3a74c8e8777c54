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

    /// Why a discovery response was refused, typed until ``error(correlationId:)`` makes the
    /// app's error of it.
    enum Failure: Error, Hashable {
        /// The body is an OAuth error: the service rejected the authority. `error` is the body's
        /// `error` (a non-string written out as JSON text would be).
        case rejected(error: String, description: String?)
        /// The body is not a discovery answer; `problem` completes "The instance discovery response ...".
        case invalidResponse(problem: String)

        /// -50000 with internal -42010 (failed authority validation) and ``MSALOAuthErrorKey``
        /// for ``rejected(error:description:)``; -50000 with internal -42600 (invalid response)
        /// for ``invalidResponse(problem:)``.
        func error(correlationId: UUID?) -> NSError {
            switch self {
            case .rejected(let error, let description):
                let reason = description.map { "\(error): \($0)" } ?? error
                return MSALErrors.make(
                    .internalErrorFailedAuthorityValidation,
                    "Instance discovery rejected the authority (\(reason)). Check the authority URL, or list the "
                        + "authority in knownAuthorities when it is a host you trust.",
                    ErrorDetails(oauthError: error, correlationId: correlationId)
                )
            case .invalidResponse(let problem):
                return MSALErrors.make(
                    .internalErrorInvalidResponse,
                    "The instance discovery response \(problem). Retry later; if it persists, check that the "
                        + "authority host is a Microsoft Entra ID endpoint.",
                    ErrorDetails(correlationId: correlationId)
                )
            }
        }
    }

    /// Parses `data`, the body of the discovery response for `requestedEnvironment`.
    ///
    /// - Returns: the tenant discovery endpoint and one record per metadata entry under each of its
    ///   aliases, plus `{network = cache = requestedEnvironment}` when no entry lists it.
    /// - Throws: the app's error for the ``Failure`` that ``read(_:requestedEnvironment:policy:)``
    ///   throws: -50000 with internal -42010 (failed authority validation) when the body has an
    ///   `error` (``MSALOAuthErrorKey`` holds it); -50000 with internal -42600 (invalid response)
    ///   when it is not a JSON object, lacks `tenant_discovery_endpoint` (or it breaks `policy`),
    ///   or has a malformed metadata entry or host. Nothing is returned from a response with any
    ///   bad part.
    static func parse(
        _ data: Data, requestedEnvironment: String, policy: DiscoveryURLPolicy = .httpsOnly,
        correlationId: UUID? = nil
    ) throws -> InstanceDiscoveryMetadata {
        do {
            return try read(data, requestedEnvironment: requestedEnvironment, policy: policy)
        } catch {
            throw error.error(correlationId: correlationId)
        }
    }

    /// ``parse(_:requestedEnvironment:policy:correlationId:)`` with the typed failure, for
    /// decisions such as ``isInvalidInstance(_:)``.
    static func read(
        _ data: Data, requestedEnvironment: String, policy: DiscoveryURLPolicy = .httpsOnly
    ) throws(Failure) -> InstanceDiscoveryMetadata {
        guard let json = DiscoveryJSON(data) else {
            throw .invalidResponse(problem: "is not a JSON object")
        }
        if json.has("error") {
            throw .rejected(
                error: json.text("error"),
                description: json.string("error_description"))
        }
        guard let endpointString = json.string("tenant_discovery_endpoint") else {
            throw .invalidResponse(problem: "has no tenant_discovery_endpoint string")
        }
        let endpoint: URL
        switch policy.check(endpointString) {
        case .success(let url):
            endpoint = url
        case .failure(let violation):
            throw .invalidResponse(problem: "has a tenant_discovery_endpoint that \(violation.reason)")
        }
        var records: [String: AuthorityAliasRecord] = [:]
        if json.has("metadata") {
            guard let entries = json.array("metadata") else {
                throw .invalidResponse(problem: "has a metadata value that is not an array")
            }
            for entry in entries {
                let record = try parseRecord(entry)
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

    /// Whether `failure` is the `invalid_instance` answer of instance discovery.
    static func isInvalidInstance(_ failure: Failure) -> Bool {
        guard case .rejected(let error, _) = failure else { return false }
        return error == invalidInstance
    }

    private static func parseRecord(_ entry: JSONValue) throws(Failure) -> AuthorityAliasRecord {
        guard let object = entry.objectValue else {
            throw .invalidResponse(problem: "has a metadata entry that is not an object")
        }
        let json = DiscoveryJSON(object: object)
        guard let network = json.string("preferred_network").flatMap(DiscoveryHost.normalized) else {
            throw .invalidResponse(problem: "has a metadata entry without a valid preferred_network host")
        }
        guard let cache = json.string("preferred_cache").flatMap(DiscoveryHost.normalized) else {
            throw .invalidResponse(problem: "has a metadata entry without a valid preferred_cache host")
        }
        guard let rawAliases = json.array("aliases").flatMap(DiscoveryJSON.strings) else {
            throw .invalidResponse(problem: "has a metadata entry without an aliases array of strings")
        }
        var aliases: [String] = []
        for raw in rawAliases {
            guard let alias = DiscoveryHost.normalized(raw) else {
                throw .invalidResponse(problem: "has an alias that is not a valid host")
            }
            if !aliases.contains(alias) {
                aliases.append(alias)
            }
        }
        return AuthorityAliasRecord(preferredNetwork: network, preferredCache: cache, aliases: aliases)
    }
}
