import Foundation
import MSALNative

/// What discovery learned about an authority, ready for requests and cache lookups. A class:
/// every silent request passes it around, and copying its strings and URLs costs more than a
/// reference.
final class ResolvedAuthority: Sendable {
    /// The authority as requested.
    let authority: Authority
    /// The authority on the host requests go to (instance discovery's `preferred_network`).
    let networkAuthority: Authority
    /// The environment tokens are written under (`preferred_cache`).
    let cacheEnvironment: String
    /// The environments to look tokens up under, in MSAL's order.
    let cacheLookupEnvironments: [String]
    /// Every alias of the authority's cloud.
    let aliases: [String]
    /// The provider's endpoints.
    let configuration: OpenIDConfiguration
    /// The tenant id in the provider's issuer (`https://host/<tenant id>/v2.0`), when it is a GUID:
    /// a domain-named AAD tenant resolves to its id through it.
    let issuerTenantId: String?
    /// The public object for results, made once.
    let publicAuthority: MSALAuthority

    init(
        authority: Authority, networkAuthority: Authority, cacheEnvironment: String, cacheLookupEnvironments: [String],
        aliases: [String], configuration: OpenIDConfiguration
    ) {
        self.authority = authority
        self.networkAuthority = networkAuthority
        self.cacheEnvironment = cacheEnvironment
        self.cacheLookupEnvironments = cacheLookupEnvironments
        self.aliases = aliases
        self.configuration = configuration
        issuerTenantId = URL(string: configuration.issuer).flatMap(Authority.tenant(ofEndpoint:))
            .flatMap { UUID(uuidString: $0) != nil ? $0.lowercased() : nil }
        publicAuthority = MSALAuthority.wrap(authority)
    }

    /// The issuer an id token from this authority must name (OpenID Connect Core §3.1.3.7 step 2):
    /// the configuration's `issuer`. For AAD, where one configuration serves every alias of a cloud
    /// and `common`, `organizations` and `consumers` sign in users of any tenant, the token's host
    /// may be another alias of the cloud and, for those three, its tenant segment is the token's
    /// `tid`.
    ///
    /// - Parameters:
    ///   - tokenIssuer: the id token's `iss`.
    ///   - tenantId: the id token's `tid`.
    /// - Returns: the expected issuer, to compare with `tokenIssuer`.
    func expectedIssuer(tokenIssuer: String?, tenantId: String?) -> String {
        let configured = configuration.issuer
        guard case .aad(let tenantType) = authority.kind,
            var expected = URLComponents(string: configured), let host = expected.host,
            let tokenIssuer, let actual = URLComponents(string: tokenIssuer), let actualHost = actual.host
        else { return configured }
        let knownHosts = Set(aliases.map { $0.lowercased() })
        if actualHost.lowercased() != host.lowercased(), knownHosts.contains(host.lowercased()),
            knownHosts.contains(actualHost.lowercased())
        {
            expected.host = actualHost
        }
        // A tenant id is a GUID or a domain name; anything else (a server's `tid` of any text)
        // is not put into a path, where URLComponents would trap on it: the issuer then simply
        // does not match.
        if tenantType.isTenantless, let tenantId, !tenantId.isEmpty, tenantId.utf8.allSatisfy(ASCII.isUnreserved) {
            var segments = expected.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false)
            if segments.count > 1, AADTenantType(realm: String(segments[1])).isTenantless {
                segments[1] = Substring(tenantId)
                expected.percentEncodedPath = segments.joined(separator: "/")
            }
        }
        return expected.string ?? configured
    }
}

/// Resolves authorities: instance discovery for AAD (trusted hosts, aliases, `preferred_network`
/// and `preferred_cache`), validation for B2C, and tenant discovery (openid-configuration) for
/// every kind. Results are cached in memory and, through ``DiscoveryCacheStorage``, in the token
/// cache file; one request is in flight per URL.
final class AuthorityResolver: Sendable {
    private let transport: any HTTPTransport
    let cache: DiscoveryCache
    /// Authorities already resolved, so a silent request that hits the token cache parses no
    /// discovery document: keyed by URL and whether the authority is developer-known.
    private let resolved = Locked([MemoKey: (value: ResolvedAuthority, expiresOn: Date)]())

    private struct MemoKey: Hashable {
        let url: String
        let developerKnown: Bool
    }

    init(transport: any HTTPTransport, cache: DiscoveryCache = DiscoveryCache()) {
        self.transport = transport
        self.cache = cache
    }

    /// ``resolveUncached(_:knownAuthorities:correlationId:)`` behind an in-memory memo that lives as
    /// long as the discovery documents it was built from.
    func resolve(_ authority: Authority, knownAuthorities: [Authority], correlationId: UUID) async throws
        -> ResolvedAuthority
    {
        let key = MemoKey(url: authority.urlString, developerKnown: authority.isListed(in: knownAuthorities))
        let now = cache.now()
        if let hit = resolved.withLock({ $0[key] }), hit.expiresOn > now { return hit.value }
        let value = try await resolveUncached(
            authority, knownAuthorities: knownAuthorities, correlationId: correlationId)
        let expiresOn = now.addingTimeInterval(cache.lifetime)
        resolved.withLock { $0[key] = (value, expiresOn) }
        return value
    }

    /// Where to look up `authority`'s tokens without sending anything: from an earlier resolution
    /// in this process (of any age), else from what sign-in left (the realm in the authority or
    /// the account, and for Entra ID the kept instance discovery answer, of any age: a cloud's
    /// aliases do not change). `nil` when that is not enough (a domain-named tenant, or no kept
    /// instance discovery answer): the caller resolves the authority then.
    func offlineLookupScope(_ authority: Authority, knownAuthorities: [Authority], homeTenant: String?)
        async -> CacheLookupScope?
    {
        let developerKnown = authority.isListed(in: knownAuthorities)
        let key = MemoKey(url: authority.urlString, developerKnown: developerKnown)
        if let earlier = resolved.withLock({ $0[key] })?.value {
            return earlier.lookupScope(realm: ApplicationContext.cacheRealm(earlier, homeTenant: homeTenant))
        }
        guard let realm = CacheLookupScope.offlineRealm(authority, homeTenant: homeTenant) else { return nil }
        let environment = authority.environment
        guard case .aad = authority.kind,
            let discoveryURL = authority.instanceDiscoveryURL(isDeveloperKnown: developerKnown)
        else {
            return CacheLookupScope(
                authority: authority, environments: [environment], cacheEnvironment: environment, realm: realm)
        }
        let policy = DiscoveryURLPolicy(
            configuredAuthority: authority, isDeveloperKnown: developerKnown, documentURL: discoveryURL,
            sameHost: false)
        let parse: @Sendable (Data) throws -> InstanceDiscoveryMetadata = { body in
            try InstanceDiscoveryParser.parse(body, requestedEnvironment: environment, policy: policy)
        }
        // Parsed once, here: a kept body that does not parse gives no scope (the resolver drops
        // it when a request needs discovery), as checking it inside `keptBody` would, which
        // parsed the same document three times (measured: 0.1-0.2 ms of `msal token`).
        guard
            let body = await cache.keptBody(
                forKey: Self.instanceDiscoveryKey(discoveryURL, environment), isCacheable: { _ in true }),
            let metadata = try? parse(body)
        else { return nil }
        return CacheLookupScope(
            authority: authority, environments: metadata.cacheLookupEnvironments(for: environment),
            cacheEnvironment: metadata.preferredCache(for: environment), realm: realm)
    }

    /// The discovery cache's key of an instance discovery answer: one per cloud host, whatever
    /// the tenant in the request (MSAL keys its records by environment too).
    private static func instanceDiscoveryKey(_ discoveryURL: URL, _ environment: String) -> String {
        "instance-discovery|\(discoveryURL.host ?? "")|\(environment)"
    }

    /// Resolves `authority` for a request.
    ///
    /// - Parameter knownAuthorities: the app's `knownAuthorities`; listed authorities are trusted
    ///   without validation (and may use `http` on loopback).
    /// - Throws: -50000 with internal -42010 when the authority fails validation
    ///   (`invalid_instance`, a B2C host that is not listed), -42600 for a malformed discovery
    ///   document, -42007 for an unexpected HTTP status, or an `NSURLErrorDomain` error.
    func resolveUncached(_ authority: Authority, knownAuthorities: [Authority], correlationId: UUID) async throws
        -> ResolvedAuthority
    {
        try authority.validateScheme(knownAuthorities: knownAuthorities, correlationId: correlationId)
        let developerKnown = authority.isListed(in: knownAuthorities)
        var network = authority
        var cacheEnvironment = authority.environment
        var lookup = [authority.environment]
        var aliases = [authority.environment]

        switch authority.kind {
        case .aad:
            if let discoveryURL = authority.instanceDiscoveryURL(isDeveloperKnown: developerKnown) {
                do {
                    let environment = authority.environment
                    let key = Self.instanceDiscoveryKey(discoveryURL, environment)
                    let policy = DiscoveryURLPolicy(
                        configuredAuthority: authority, isDeveloperKnown: developerKnown, documentURL: discoveryURL,
                        sameHost: false)
                    let body = try await fetch(discoveryURL, key: key, correlationId: correlationId) { body in
                        do throws(InstanceDiscoveryParser.Failure) {
                            _ = try InstanceDiscoveryParser.read(
                                body, requestedEnvironment: environment, policy: policy)
                            return true
                        } catch {
                            return InstanceDiscoveryParser.isInvalidInstance(error)
                        }
                    }
                    let metadata = try InstanceDiscoveryParser.parse(
                        body, requestedEnvironment: environment, policy: policy, correlationId: correlationId)
                    let preferred = try authority.withEnvironment(
                        metadata.preferredNetwork(for: environment), correlationId: correlationId)
                    try Self.checkPlainHTTPOrigin(preferred, configured: authority, correlationId: correlationId)
                    network = preferred
                    cacheEnvironment = metadata.preferredCache(for: environment)
                    lookup = metadata.cacheLookupEnvironments(for: environment)
                    aliases = metadata.aliases(of: environment)
                } catch  where developerKnown && !Self.isCancellation(error) {
                    // MSAL does not validate authorities the developer listed: a failed discovery
                    // leaves the authority as it is.
                    let code = (error as NSError).code
                    Log.warning(
                        "Instance discovery failed (\(code)) for a known authority; using it as is",
                        correlationId: correlationId)
                }
            }
        case .b2c:
            guard developerKnown || authority.isTrustedMicrosoftHost else {
                throw MSALErrors.make(
                    .internalErrorFailedAuthorityValidation,
                    "Authority validation is not supported for B2C authorities on \(authority.host). "
                        + "Add the authority to MSALPublicClientApplicationConfig.knownAuthorities.",
                    ErrorDetails(correlationId: correlationId))
            }
        case .ciam, .adfs, .oidc:
            break
        }

        let configurationURL = network.openIDConfigurationURL
        let policy = Self.endpointPolicy(
            for: authority, isDeveloperKnown: developerKnown, configurationURL: configurationURL)
        let body = try await fetch(
            configurationURL, key: configurationURL.absoluteString.lowercased(), correlationId: correlationId
        ) { body in
            (try? OpenIDConfigurationParser.parse(body, configurationURL: configurationURL, policy: policy)) != nil
        }
        let configuration = try OpenIDConfigurationParser.parse(
            body, configurationURL: configurationURL, policy: policy, correlationId: correlationId)
        Log.verbose("Resolved authority on \(network.environment)", correlationId: correlationId)
        return ResolvedAuthority(
            authority: authority,
            networkAuthority: network,
            cacheEnvironment: cacheEnvironment,
            cacheLookupEnvironments: lookup,
            aliases: aliases,
            configuration: configuration)
    }

    /// A discovery document: cached, or fetched once however many callers ask.
    ///
    /// A 200 body, or a 400 body that is an OAuth error object, is an answer for the parser; it
    /// is cached only when `isCacheable` says so (a valid document, or `invalid_instance`, so an
    /// invalid authority is not asked about again). Other statuses fail without caching.
    private func fetch(
        _ url: URL, key: String, correlationId: UUID, isCacheable: @escaping @Sendable (Data) -> Bool
    ) async throws -> Data {
        let transport = transport
        return try await cache.body(forKey: key, isCacheable: isCacheable) {
            let response = try await transport.send(HTTPRequest(url: url, correlationId: correlationId))
            switch response.statusCode {
            case 200:
                return response.body
            case 400 where Self.isOAuthErrorBody(response.body):
                return response.body
            default:
                throw MSALErrors.make(
                    .internalErrorUnhandledResponse,
                    "Discovery at \(url.withoutQuery) answered HTTP \(response.statusCode). "
                        + "Check the authority URL and the network.",
                    ErrorDetails(
                        httpStatusCode: response.statusCode,
                        httpHeaders: response.headers.dictionary,
                        correlationId: correlationId))
            }
        }
    }

    /// Where the endpoints of `authority`'s OpenID configuration may point: `https` (or the
    /// known plain-HTTP loopback origin), and for Microsoft Entra ID, B2C, CIAM and AD FS on the
    /// host the configuration was read from, as those services publish them. A generic OpenID
    /// Connect issuer may keep its endpoints on other hosts.
    static func endpointPolicy(for authority: Authority, isDeveloperKnown: Bool, configurationURL: URL)
        -> DiscoveryURLPolicy
    {
        let sameHost: Bool
        switch authority.kind {
        case .aad, .b2c, .ciam, .adfs: sameHost = true
        case .oidc: sameHost = false
        }
        return DiscoveryURLPolicy(
            configuredAuthority: authority, isDeveloperKnown: isDeveloperKnown, documentURL: configurationURL,
            sameHost: sameHost)
    }

    /// Refuses a plain-HTTP network authority on another origin than the configured one: instance
    /// discovery of a known loopback authority may not move its requests to another plain
    /// listener.
    private static func checkPlainHTTPOrigin(_ network: Authority, configured: Authority, correlationId: UUID)
        throws
    {
        guard network.isLoopbackHTTP, network.parts.origin != configured.parts.origin else { return }
        throw MSALErrors.make(
            .internalErrorInvalidResponse,
            "Instance discovery for \(configured.urlString) names \(network.environment) as its preferred "
                + "network: requests would go over plain HTTP to another origin. Nothing was sent to it.",
            ErrorDetails(correlationId: correlationId))
    }

    private static func isOAuthErrorBody(_ body: Data) -> Bool {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return false }
        return object["error"] is String
    }

    private static func isCancellation(_ error: any Error) -> Bool {
        let nsError = error as NSError
        return nsError.domain == NSURLErrorDomain && nsError.code == NSURLErrorCancelled
    }
}
