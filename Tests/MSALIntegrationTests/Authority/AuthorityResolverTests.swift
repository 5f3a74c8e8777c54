import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// Discovery over real HTTPS: a loopback server answers for Microsoft host names through
/// curl's CONNECT_TO, so trusted-host, alias and national-cloud rules run as in production.
final class AuthorityResolverTests: XCTestCase {
    private static let hosts = [
        "login.microsoftonline.com", "login.windows.net", "login.microsoft.com", "login.chinacloudapi.cn",
        "contoso.b2clogin.com", "login.contoso.com",
    ]

    private var authority: TestCertificateAuthority!
    private var server: LoopbackHTTPSServer!
    private var transport: CurlHTTPTransport!
    /// Requests seen, as `host path`.
    private let seen = Locked<[String]>([])
    /// How the server answers instance discovery; set per test.
    private let discovery = Locked<@Sendable (HTTPServerRequest) -> HTTPServerAction>({ _ in
        .respond(.json(status: 200, data: AuthorityResolverTests.publicCloudDiscovery()))
    })

    override func setUpWithError() throws {
        authority = try TestCertificateAuthority()
        let certificate = try authority.issueCertificate(dnsNames: ["localhost"] + Self.hosts)
        let seen = seen
        let discovery = discovery
        server = try LoopbackHTTPSServer(certificateAuthority: authority, certificate: certificate) { request in
            let host = request.header("Host") ?? ""
            seen.withLock { $0.append("\(host) \(request.path)") }
            if request.path.hasSuffix("/discovery/instance") {
                return discovery.withLock { $0 }(request)
            }
            if request.path.hasSuffix("/.well-known/openid-configuration") {
                return .respond(.json(status: 200, data: Self.openIDConfiguration(host: host, path: request.path)))
            }
            return .respond(HTTPServerResponse(status: 404))
        }
        transport = CurlHTTPTransport(
            configuration: .init(
                caFile: authority.certificateFile,
                connectTo: Self.hosts.map { "\($0):443:127.0.0.1:\(server.port)" },
                retryPolicy: RetryPolicy(retryCount: 0)))
    }

    override func tearDown() {
        server.stop()
    }

    // MARK: Fixtures

    static func publicCloudDiscovery() -> Data {
        Data(
            """
            {"tenant_discovery_endpoint":"https://login.microsoftonline.com/common/v2.0/.well-known/openid-configuration",
             "api-version":"1.1",
             "metadata":[
               {"preferred_network":"login.microsoftonline.com","preferred_cache":"login.windows.net",
                "aliases":["login.microsoftonline.com","login.windows.net","login.microsoft.com","sts.windows.net"]},
               {"preferred_network":"login.chinacloudapi.cn","preferred_cache":"login.chinacloudapi.cn",
                "aliases":["login.partner.microsoftonline.cn","login.chinacloudapi.cn"]}]}
            """.utf8)
    }

    static func openIDConfiguration(host: String, path: String) -> Data {
        let base =
            "https://\(host)"
            + path.replacingOccurrences(of: "/v2.0/.well-known/openid-configuration", with: "")
            .replacingOccurrences(of: "/.well-known/openid-configuration", with: "")
        let object: [String: Any] = [
            "authorization_endpoint": base + "/oauth2/v2.0/authorize",
            "token_endpoint": base + "/oauth2/v2.0/token",
            "issuer": "https://\(host)/{tenantid}/v2.0",
            "end_session_endpoint": base + "/oauth2/v2.0/logout",
        ]
        return (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
    }

    private func count(_ suffix: String) -> Int {
        seen.withLock { $0.filter { $0.hasSuffix(suffix) }.count }
    }

    private func resolver(storage: (any DiscoveryCacheStorage)? = nil, now: @escaping @Sendable () -> Date = { Date() })
        -> AuthorityResolver
    {
        AuthorityResolver(transport: transport, cache: DiscoveryCache(storage: storage, now: now))
    }

    private func aad(_ url: String) throws -> Authority {
        try Authority.aad(url)
    }

    private func assertFails(
        _ body: () async throws -> Void, internalCode: Int, file: StaticString = #filePath, line: UInt = #line
    ) async {
        do {
            try await body()
            XCTFail("expected an error", file: file, line: line)
        } catch {
            let nsError = error as NSError
            XCTAssertEqual(nsError.domain, MSALErrorDomain, file: file, line: line)
            XCTAssertEqual(nsError.code, -50000, file: file, line: line)
            XCTAssertEqual(nsError.userInfo[MSALInternalErrorCodeKey] as? Int, internalCode, file: file, line: line)
        }
    }

    // MARK: AAD

    func testTrustedHostIsDiscoveredOnItselfWithAliasesAndPreferredCache() async throws {
        let resolved = try await resolver().resolve(
            aad("https://login.microsoftonline.com/contoso.onmicrosoft.com"), knownAuthorities: [],
            correlationId: UUID())
        XCTAssertEqual(resolved.networkAuthority.environment, "login.microsoftonline.com")
        XCTAssertEqual(resolved.cacheEnvironment, "login.windows.net")
        XCTAssertEqual(
            resolved.cacheLookupEnvironments,
            ["login.windows.net", "login.microsoftonline.com", "login.microsoft.com", "sts.windows.net"])
        XCTAssertEqual(
            resolved.configuration.tokenEndpoint.absoluteString,
            "https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token")
        XCTAssertEqual(resolved.configuration.issuer, "https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0")
        XCTAssertEqual(
            seen.withLock { $0 },
            [
                "login.microsoftonline.com /common/discovery/instance",
                "login.microsoftonline.com /contoso.onmicrosoft.com/v2.0/.well-known/openid-configuration",
            ])
    }

    func testAliasSendsRequestsToThePreferredNetwork() async throws {
        let resolved = try await resolver().resolve(
            aad("https://login.windows.net/common"), knownAuthorities: [], correlationId: UUID())
        XCTAssertEqual(resolved.authority.environment, "login.windows.net")
        XCTAssertEqual(resolved.networkAuthority.environment, "login.microsoftonline.com")
        XCTAssertEqual(resolved.cacheLookupEnvironments.first, "login.windows.net")
        XCTAssertEqual(count("login.windows.net /common/discovery/instance"), 1)
        XCTAssertEqual(count("login.microsoftonline.com /common/v2.0/.well-known/openid-configuration"), 1)
    }

    func testNationalCloudResolvesOnItsOwnHost() async throws {
        let resolved = try await resolver().resolve(
            aad("https://login.chinacloudapi.cn/organizations"), knownAuthorities: [], correlationId: UUID())
        XCTAssertEqual(resolved.networkAuthority.environment, "login.chinacloudapi.cn")
        XCTAssertEqual(resolved.aliases, ["login.partner.microsoftonline.cn", "login.chinacloudapi.cn"])
        XCTAssertEqual(count("login.chinacloudapi.cn /common/discovery/instance"), 1)
    }

    func testUnknownHostIsValidatedByThePublicCloudAndInvalidInstanceIsRemembered() async throws {
        discovery.withLock {
            $0 = { _ in
                .respond(
                    .json(
                        status: 400,
                        data: Data(
                            #"{"error":"invalid_instance","error_description":"AADSTS50049: Unknown or invalid instance.","error_codes":[50049]}"#
                                .utf8)))
            }
        }
        let resolver = resolver()
        let unknown = try aad("https://login.contoso.com/common")
        for _ in 0..<2 {
            await assertFails(
                { _ = try await resolver.resolve(unknown, knownAuthorities: [], correlationId: UUID()) },
                internalCode: -42010)
        }
        XCTAssertEqual(seen.withLock { $0 }, ["login.microsoftonline.com /common/discovery/instance"])
    }

    func testKnownAuthorityIsDiscoveredOnItsOwnHostAndAFailureIsIgnored() async throws {
        discovery.withLock { $0 = { _ in .respond(HTTPServerResponse(status: 404)) } }
        let custom = try aad("https://login.contoso.com/tenant")
        let resolved = try await resolver().resolve(custom, knownAuthorities: [custom], correlationId: UUID())
        XCTAssertEqual(resolved.networkAuthority.environment, "login.contoso.com")
        XCTAssertEqual(resolved.cacheEnvironment, "login.contoso.com")
        XCTAssertEqual(count("login.contoso.com /common/discovery/instance"), 1)
        XCTAssertEqual(count("login.contoso.com /tenant/v2.0/.well-known/openid-configuration"), 1)
    }

    func testMalformedMetadataIsRejectedAndNotCached() async throws {
        discovery.withLock {
            $0 = { _ in
                .respond(
                    .json(
                        status: 200,
                        data: Data(
                            #"{"tenant_discovery_endpoint":"https://login.microsoftonline.com/x","metadata":[{"preferred_network":"bad host!","preferred_cache":"a","aliases":[]}]}"#
                                .utf8)))
            }
        }
        let resolver = resolver()
        let authorityURL = try aad("https://login.microsoftonline.com/common")
        for _ in 0..<2 {
            await assertFails(
                { _ = try await resolver.resolve(authorityURL, knownAuthorities: [], correlationId: UUID()) },
                internalCode: -42600)
        }
        XCTAssertEqual(count("/common/discovery/instance"), 2)
    }

    func testServerErrorIsAnUnhandledResponse() async throws {
        discovery.withLock { $0 = { _ in .respond(HTTPServerResponse(status: 503)) } }
        await assertFails(
            {
                _ = try await self.resolver().resolve(
                    self.aad("https://login.microsoftonline.com/common"), knownAuthorities: [], correlationId: UUID())
            }, internalCode: -42007)
    }

    func testNetworkFailureIsAnURLError() async throws {
        server.stop()
        do {
            _ = try await resolver().resolve(
                aad("https://login.microsoftonline.com/common"), knownAuthorities: [], correlationId: UUID())
            XCTFail("expected a network error")
        } catch {
            XCTAssertEqual((error as NSError).domain, NSURLErrorDomain)
            XCTAssertEqual((error as NSError).code, URLError.Code.cannotConnectToHost.rawValue)
        }
    }

    // MARK: Caching

    func testConcurrentResolutionsShareOneRequestEach() async throws {
        let resolver = resolver()
        let target = try aad("https://login.microsoftonline.com/contoso.onmicrosoft.com")
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    try await resolver.resolve(target, knownAuthorities: [], correlationId: UUID()).cacheEnvironment
                }
            }
            for try await environment in group {
                XCTAssertEqual(environment, "login.windows.net")
            }
        }
        XCTAssertEqual(count("/common/discovery/instance"), 1)
        XCTAssertEqual(count("/openid-configuration"), 1)
    }

    func testPersistedResultsServeANewApplicationUntilTheyExpire() async throws {
        let storage = MemoryDiscoveryStorage()
        let clock = Locked(Date())
        let now: @Sendable () -> Date = { clock.withLock { $0 } }
        let target = try aad("https://login.microsoftonline.com/common")
        _ = try await resolver(storage: storage, now: now).resolve(target, knownAuthorities: [], correlationId: UUID())
        XCTAssertEqual(seen.withLock { $0.count }, 2)
        XCTAssertEqual(storage.count, 2)

        for _ in 0..<5 {  // five more "processes"
            _ = try await resolver(storage: storage, now: now).resolve(
                target, knownAuthorities: [], correlationId: UUID())
        }
        XCTAssertEqual(seen.withLock { $0.count }, 2)

        clock.withLock { $0 = $0.addingTimeInterval(24 * 3600 + 1) }
        _ = try await resolver(storage: storage, now: now).resolve(target, knownAuthorities: [], correlationId: UUID())
        XCTAssertEqual(seen.withLock { $0.count }, 4)
    }

    // MARK: Other kinds

    func testB2CHostMustBeKnownAndSkipsInstanceDiscovery() async throws {
        let b2c = try Authority.b2c(
            "https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/B2C_1_signin",
            validateFormat: true)
        await assertFails(
            { _ = try await self.resolver().resolve(b2c, knownAuthorities: [], correlationId: UUID()) },
            internalCode: -42010)
        XCTAssertEqual(seen.withLock { $0.count }, 0)

        let resolved = try await resolver().resolve(b2c, knownAuthorities: [b2c], correlationId: UUID())
        XCTAssertEqual(resolved.cacheEnvironment, "contoso.b2clogin.com")
        XCTAssertEqual(
            seen.withLock { $0 },
            ["contoso.b2clogin.com /tfp/contoso.onmicrosoft.com/B2C_1_signin/v2.0/.well-known/openid-configuration"])
    }

    func testLoopbackHTTPIsRefusedUnlessKnown() async throws {
        let loopback = try aad("http://127.0.0.1:\(server.port)/common")
        await assertFails(
            { _ = try await self.resolver().resolve(loopback, knownAuthorities: [], correlationId: UUID()) },
            internalCode: -42000)
    }
}

/// Persisted discovery entries kept in memory, standing in for the token cache file section.
final class MemoryDiscoveryStorage: DiscoveryCacheStorage {
    private let entries = Locked<[String: DiscoveryCacheEntry]>([:])

    var count: Int { entries.withLock { $0.count } }

    func loadDiscoveryEntries() -> [String: DiscoveryCacheEntry] {
        entries.withLock { $0 }
    }

    func saveDiscoveryEntry(_ entry: DiscoveryCacheEntry, forKey key: String) {
        entries.withLock { $0[key] = entry }
    }
}
