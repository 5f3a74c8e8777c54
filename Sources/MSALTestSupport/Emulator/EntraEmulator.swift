public import Foundation
import MSALNative

/// A Microsoft Entra ID (v2.0 endpoints) emulator on 127.0.0.1 over real HTTPS, for tests.
///
/// ```swift
/// let emulator = try EntraEmulator()          // started; Alice signs in by default
/// defer { emulator.stop() }
/// // Trust emulator.certificateAuthority.certificateFile, then either use
/// // emulator.authority(tenant: "common") directly, or send requests for
/// // login.microsoftonline.com to it with curl's CONNECT_TO entries emulator.connectTo.
/// emulator.inject(.invalidGrant(suberror: "bad_token"), at: .token, grantType: .refreshToken)
/// ```
///
/// It serves instance discovery, openid-configuration and keys, a scripted authorize endpoint,
/// the token endpoint (authorization code with PKCE, refresh token with rotation and FOCI, device
/// code, password), the device-code endpoint and logout, with Entra's response and error shapes.
/// Tests drive it through this API: directory contents, lifetimes, the clock, sign-in decisions,
/// injected faults, revocation, counters and the request log. Several emulators can run in one
/// process; each has its own certificate authority, port, keys and state.
public final class EntraEmulator: Sendable {
    let engine: EmulatorEngine
    let server: LoopbackHTTPSServer
    private let hostNames: [String]
    /// Folders made for the caches of ``applicationConfiguration(clientId:authority:redirectUri:cache:)``,
    /// removed by ``stop()``.
    let temporaryFolders = Locked<[URL]>([])

    /// The port on 127.0.0.1.
    public var port: Int { server.port }

    /// `https://127.0.0.1:<port>`, without a trailing slash.
    public var baseURL: URL { server.baseURL }

    /// The authority that issued the emulator's certificate: trust its
    /// ``TestCertificateAuthority/certificateFile`` (or ``TestCertificateAuthority/certificatePEM``).
    public var certificateAuthority: TestCertificateAuthority { server.certificateAuthority }

    /// The emulator's own server certificate. Its ``TestServerCertificate/spkiSHA256Base64`` lets a
    /// real browser trust exactly this certificate (Chromium's
    /// `--ignore-certificate-errors-spki-list`) without disabling certificate checks.
    public var certificate: TestServerCertificate { server.certificate }

    /// Starts an emulator.
    ///
    /// - Throws: ``TestSupportError`` when the port cannot be bound or a key or certificate
    ///   cannot be made.
    public init(configuration: Configuration = Configuration()) throws {
        engine = try EmulatorEngine(configuration: configuration)
        var names = ["localhost"]
        for name in configuration.clouds.flatMap(\.aliases) + ["*.b2clogin.com", "*.ciamlogin.com"]
            + configuration.tenants.filter({ $0.kind == .adfs }).flatMap(\.domains)
            + configuration.additionalHostNames
        where !names.contains(name.lowercased()) {
            names.append(name.lowercased())
        }
        hostNames = names
        let authority = try TestCertificateAuthority()
        let certificate = try authority.issueCertificate(dnsNames: names, ipAddresses: ["127.0.0.1", "::1"])
        let engine = engine
        let control = configuration.controlToken.map(EmulatorControl.init(token:))
        server = try LoopbackHTTPSServer(port: configuration.port, certificate: certificate) { request in
            if let answer = control?.handle(request) { return .respond(answer) }
            return engine.handle(request)
        }
        control?.attach(self)
    }

    deinit {
        stop()
    }

    /// Stops the emulator: the port closes and every connection ends before it returns, and the
    /// temporary folders it made (its CA certificate, cache folders) are removed. Idempotent; also done when the emulator is
    /// released.
    public func stop() {
        server.stop()
        // The CA's certificate file, made by `start`: gone with the emulator's other files.
        certificateAuthority.removeCertificateFile()
        for folder in temporaryFolders.withLock({ folders in
            defer { folders.removeAll() }
            return folders
        }) {
            try? FileManager.default.removeItem(at: folder)
        }
    }

    // MARK: Addresses

    /// curl `CONNECT_TO` entries (`login.microsoftonline.com:443:127.0.0.1:<port>`) that send every
    /// host the emulator poses as to it: the cloud aliases, the AD FS hosts, and the b2clogin and
    /// ciamlogin hosts of its B2C and CIAM tenants.
    public var connectTo: [String] {
        let tenantHosts = engine.state.withLock { state in
            state.tenants.compactMap { tenant -> String? in
                switch tenant.kind {
                case .b2c: return "\(tenant.shortName).b2clogin.com"
                case .ciam: return "\(tenant.shortName).ciamlogin.com"
                default: return nil
                }
            }
        }
        let names = hostNames.filter { $0 != "localhost" && !$0.hasPrefix("*") } + tenantHosts
        return names.map { "\($0):443:127.0.0.1:\(port)" }
    }

    /// An authority URL. With `host` `nil` it is on the loopback address (`https://127.0.0.1:<port>`);
    /// with a host the emulator poses as (`login.microsoftonline.com`) it needs ``connectTo``.
    ///
    /// - `.aad("common")` → `https://host/common`
    /// - `.b2c(tenant:policy:)` → `https://host/tfp/{tenant}/{policy}`
    /// - `.b2cLogin(tenant:policy:)` → `https://{name}.b2clogin.com/{tenant}/{policy}` (host ignored)
    /// - `.ciam(tenant)` → `https://{name}.ciamlogin.com/{tenant}` (host ignored)
    /// - `.adfs` → `https://host/adfs`
    /// - `.oidc(tenant)` → `https://host/{tenant}/v2.0`, an OpenID Connect issuer whose
    ///   `/.well-known/openid-configuration` is served
    public func authority(_ kind: AuthorityKind, host: String? = nil) -> URL {
        let origin = host.map { "https://\($0)" } ?? baseURL.absoluteString
        let text: String
        switch kind {
        case .aad(let tenant): text = "\(origin)/\(tenant)"
        case .b2c(let tenant, let policy): text = "\(origin)/tfp/\(tenant)/\(policy)"
        case .b2cLogin(let tenant, let policy):
            text = "https://\(Self.shortName(tenant)).b2clogin.com/\(tenant)/\(policy)"
        case .ciam(let tenant): text = "https://\(Self.shortName(tenant)).ciamlogin.com/\(tenant)"
        case .adfs: text = "\(origin)/adfs"
        case .oidc(let tenant): text = "\(origin)/\(tenant)/v2.0"
        }
        return URL(string: text) ?? baseURL
    }

    /// The AAD authority `https://127.0.0.1:<port>/<tenant>` (or on `host`).
    public func authority(tenant: String = "common", host: String? = nil) -> URL {
        authority(.aad(tenant), host: host)
    }

    /// The kinds of authority URL ``authority(_:host:)`` makes.
    public enum AuthorityKind: Sendable, Hashable {
        /// `https://host/{tenant}`: `common`, `organizations`, `consumers`, a tenant id or domain.
        case aad(String)
        /// `https://host/tfp/{tenant}/{policy}`.
        case b2c(tenant: String, policy: String)
        /// `https://{name}.b2clogin.com/{tenant}/{policy}`.
        case b2cLogin(tenant: String, policy: String)
        /// `https://{name}.ciamlogin.com/{tenant}`.
        case ciam(String)
        /// `https://host/adfs`.
        case adfs
        /// `https://host/{tenant}/v2.0`, used as a generic OpenID Connect issuer.
        case oidc(String)
    }

    private static func shortName(_ tenant: String) -> String {
        String(tenant.split(separator: ".").first ?? Substring(tenant)).lowercased()
    }

    /// A human-readable summary: base URL, CA file, issuers and `CONNECT_TO` entries, for a
    /// standalone run.
    public var summary: String {
        var lines = [
            "Entra emulator listening on \(baseURL.absoluteString)",
            "CA certificate: \(certificateAuthority.certificateFile)",
            "Authorities:",
        ]
        let tenants = engine.state.withLock { $0.tenants }
        lines.append("  \(authority(tenant: "common").absoluteString)  (also organizations, consumers)")
        for tenant in tenants {
            switch tenant.kind {
            case .workforce, .microsoftAccounts:
                lines.append("  \(authority(tenant: tenant.id).absoluteString)  (\(tenant.domains.first ?? ""))")
            case .b2c:
                let domain = tenant.domains.first ?? tenant.id
                lines.append("  \(authority(.b2c(tenant: domain, policy: "B2C_1_signin")).absoluteString)  (B2C)")
            case .ciam:
                lines.append("  \(authority(.aad(tenant.domains.first ?? tenant.id)).absoluteString)  (CIAM)")
            case .adfs:
                lines.append("  \(authority(.adfs).absoluteString)  (AD FS)")
            }
        }
        lines.append("curl --connect-to entries for the cloud host names:")
        lines += connectTo.map { "  \($0)" }
        return lines.joined(separator: "\n")
    }
}
