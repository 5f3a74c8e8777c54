import Foundation
import MSALNative

/// Everything the flows of one ``MSALPublicClientApplication`` share: the configuration as it was
/// when the application was created, the transport, discovery, the token cache, throttling and
/// the refreshes in flight.
final class ApplicationContext: Sendable {
    let clientId: String
    let redirectUri: String?
    let defaultAuthority: Authority
    let knownAuthorities: [Authority]
    let capabilities: [String]?
    let tokenExpirationBuffer: TimeInterval
    let extendedLifetimeEnabled: Bool
    let multipleCloudsSupported: Bool
    let bypassRedirectURIValidation: Bool
    let transport: any HTTPTransport
    let resolver: AuthorityResolver
    let cache: TokenCache
    let throttling: ThrottlingCache
    let refreshes = SingleFlight<String, MSALResult>()
    /// Serialises refreshes of one token across processes sharing the cache file.
    let refreshLock: RefreshLock?
    /// The scopes of cached access token targets, split once (a cache hit returns them each time).
    private let targetScopes = Locked([String: [String]]())
    let now: @Sendable () -> Date
    /// Waits (device code polling); throws when the task is cancelled. Tests shorten it.
    let sleep: @Sendable (TimeInterval) async throws -> Void
    /// The broker, when the configuration turned it on (``MSALBrokeredAvailability/auto`` and a
    /// connection).
    let broker: (any MSALBrokerConnection)?
    /// Whether "no broker answers" was logged already (once per application).
    let brokerAbsenceLogged = Locked(false)

    init(
        configuration: MSALPublicClientApplicationConfig.Values, transport: any HTTPTransport,
        now: @escaping @Sendable () -> Date,
        sleep: @escaping @Sendable (TimeInterval) async throws -> Void = ApplicationContext.systemSleep
    ) {
        clientId = configuration.clientId
        redirectUri = configuration.redirectUri
        defaultAuthority = configuration.authority.model
        knownAuthorities = configuration.knownAuthorities.map(\.model)
        capabilities = configuration.clientApplicationCapabilities
        tokenExpirationBuffer = configuration.tokenExpirationBuffer
        extendedLifetimeEnabled = configuration.extendedLifetimeEnabled
        multipleCloudsSupported = configuration.multipleCloudsSupported
        bypassRedirectURIValidation = configuration.bypassRedirectURIValidation
        broker = configuration.brokerAvailability == .auto ? configuration.brokerConnection : nil
        self.transport = transport
        self.now = now
        self.sleep = sleep
        cache = TokenCache(settings: configuration.cacheConfig.settings(), now: now)
        refreshLock = cache.coordinationPath.map(RefreshLock.init(cacheFilePath:))
        resolver = AuthorityResolver(
            transport: transport, cache: DiscoveryCache(storage: CacheDiscoveryStorage(cache: cache), now: now))
        throttling = ThrottlingCache(now: now)
    }

    /// Waits `seconds` of real time; throws when the task is cancelled.
    @Sendable static func systemSleep(_ seconds: TimeInterval) async throws {
        try await Task.sleep(for: .milliseconds(Int((seconds * 1000).rounded())))
    }

    /// How the application's transport is set up, all from its own configuration: its trust (the
    /// configured CA file), its host routing (`connectTo`), its HTTP settings (retries, timeouts,
    /// limits, proxy; those it does not set follow the global ones), and the plain-HTTP origins a
    /// credential may go to, those of the loopback `http` authorities listed in
    /// `knownAuthorities` (none otherwise).
    static func transportConfiguration(for configuration: MSALPublicClientApplicationConfig.Values)
        -> CurlHTTPTransport.Configuration
    {
        CurlHTTPTransport.Configuration(
            caFile: configuration.certificateAuthorityFile,
            connectTo: configuration.connectTo,
            // A copy: the application's settings are fixed when it is made, as every other one.
            httpConfig: configuration.httpConfig.copy(),
            plainHTTPOrigins: PlainHTTPPolicy.allowedOrigins(
                knownAuthorities: configuration.knownAuthorities.map(\.model)))
    }

    /// Runs `body` holding the cross-process refresh lock for `key` (when the cache is a file or
    /// has a signal file), or the fleet's refresh lease (when the cache is in a shared storage
    /// that coordinates refreshes, ``MSALCacheRefreshCoordinating``).
    func withRefreshLock<Result: Sendable>(_ key: String, _ body: () async throws -> Result) async throws -> Result {
        if let coordinator = cache.refreshCoordinator {
            return try await withRefreshLease(coordinator, key, body)
        }
        guard let refreshLock else { return try await body() }
        return try await refreshLock.withLock(key: key, timeout: 30, body)
    }

    /// Takes the shared storage's lease for `key`, waiting while another machine holds it
    /// (``RefreshLeaseWaitDecision``), runs `body` with the lease fencing its saves
    /// (``RefreshLeaseScope``) and releases it. Under the lease the cache asks the storage for
    /// its version before the next read, so a result another machine stored is seen.
    private func withRefreshLease<Result: Sendable>(
        _ coordinator: any MSALCacheRefreshCoordinating, _ key: String, _ body: () async throws -> Result
    ) async throws -> Result {
        let start = Date()
        var attempt = 1
        while true {
            let lease: MSALCacheRefreshLease?
            do {
                lease = try coordinator.acquireRefreshLease(key: key)
            } catch {
                throw CacheStorageError.customStorage(error).error
            }
            if let lease {
                cache.forgetVersionCheck()
                defer {
                    do {
                        try coordinator.releaseRefreshLease(lease)
                    } catch {
                        // It expires by itself; meanwhile other machines wait for it.
                        Log.warning("Could not release the refresh lease in the shared cache storage: \(error)")
                    }
                }
                return try await RefreshLeaseScope.$current.withValue(lease) { try await body() }
            }
            let decision = RefreshLeaseWaitDecision.decide(
                attempt: attempt, elapsed: Date().timeIntervalSince(start),
                leaseDuration: coordinator.refreshLeaseDuration, jitter: Double.random(in: 0..<1))
            switch decision {
            case .retry(let pause):
                try await Task.sleep(for: .milliseconds(pause))
                attempt += 1
            case .giveUp:
                throw MSALErrors.make(
                    .internal,
                    "Another machine sharing the token cache held the refresh lease for this token longer than "
                        + "\(2 * coordinator.refreshLeaseDuration) s; this call did not refresh the token. Retry.")
            }
        }
    }

    /// The scopes of an access token's `target`, as the server granted them.
    func scopes(ofTarget target: String) -> [String] {
        if let known = targetScopes.withLock({ $0[target] }) { return known }
        // Split on the UTF-8 bytes: `String.split` walks grapheme clusters, which costs more than
        // the rest of a cache hit.
        let scopes = target.utf8.split(separator: UInt8(ascii: " ")).map { String(decoding: $0, as: UTF8.self) }
        targetScopes.withLock { memo in
            if memo.count >= 256 { memo.removeAll(keepingCapacity: true) }
            memo[target] = scopes
        }
        return scopes
    }

    /// The token client over this application's transport and clock.
    var tokenClient: TokenClient { TokenClient(transport: transport, now: now) }

    /// The authority of a request and the authorities known to the developer for it: the
    /// parameters' authority, else the configured one, re-targeted to the account's home tenant
    /// when it is tenantless (`common`, `consumers`, and `organizations` for work accounts), as
    /// MSAL does for silent requests. A re-targeted authority is known when the one it came from is
    /// (``Authority/knownAuthorities(_:retargeting:to:)``).
    func requestAuthority(_ requested: MSALAuthority?, account: MSALAccount?, retarget: Bool, correlationId: UUID)
        throws -> (authority: Authority, knownAuthorities: [Authority])
    {
        let authority = requested?.model ?? defaultAuthority
        if requested != nil, authority.kind.family != defaultAuthority.kind.family {
            throw MSALErrors.make(
                .internalErrorInvalidParameter,
                "Unsupported authority type. Please configure MSALPublicClientApplication with the same authority type "
                    + "(\(defaultAuthority.kind.name)) as the request's (\(authority.kind.name)).",
                ErrorDetails(correlationId: correlationId))
        }
        guard retarget, let tenantType = authority.aadTenantType, tenantType.isTenantless,
            let homeTenant = account?.homeAccountId?.tenantId, !homeTenant.isEmpty
        else { return (authority, knownAuthorities) }
        if case .organizations = tenantType, homeTenant == Self.consumersTenantId {
            return (authority, knownAuthorities)
        }
        let retargeted = try authority.withTenant(homeTenant, correlationId: correlationId)
        return (retargeted, Authority.knownAuthorities(knownAuthorities, retargeting: authority, to: retargeted))
    }

    /// The tenant id of personal Microsoft accounts.
    static let consumersTenantId = "9188040d-6c67-4c5b-b112-36a304b66dad"

    /// The realm tokens of `resolved` are cached under for `homeTenant` (the account's utid):
    /// AAD and CIAM use the tenant id in the provider's issuer (a domain-named tenant resolves to
    /// its id), B2C the home tenant, AD FS and OIDC the authority's realm.
    static func cacheRealm(_ resolved: ResolvedAuthority, homeTenant: String?) -> String {
        switch resolved.authority.kind {
        case .aad, .ciam:
            return resolved.issuerTenantId ?? resolved.authority.realm
        case .b2c:
            return homeTenant ?? resolved.authority.realm
        case .adfs, .oidc:
            return resolved.authority.realm
        }
    }
}
