public import Foundation
import MSALNative

/// The configuration of an ``MSALPublicClientApplication``: the app registration (client id,
/// redirect URI), the default authority, and how tokens are cached.
///
/// The application copies the configuration when it is created; changing this object afterwards
/// does not affect an application already made.
public final class MSALPublicClientApplicationConfig: @unchecked Sendable {
    // @unchecked: every stored value is behind `values`' lock.
    struct Values: Sendable {
        var clientId: String
        var redirectUri: String?
        var authority: MSALAuthority
        var knownAuthorities: [MSALAuthority] = []
        var clientApplicationCapabilities: [String]?
        var tokenExpirationBuffer: Double = 300
        var extendedLifetimeEnabled = false
        var multipleCloudsSupported = false
        var bypassRedirectURIValidation = false
        var certificateAuthorityFile: String?
        var connectTo: [String] = []
        var httpConfig = MSALHTTPConfig(following: MSALGlobalConfig.httpConfig)
        var cacheConfig: MSALCacheConfig
        var clock: TestClock?
        var brokerAvailability = MSALBrokeredAvailability.none
        var brokerConnection: (any MSALBrokerConnection)?
    }

    /// A clock and a way to wait that replace the system's, set by test support.
    struct TestClock: Sendable {
        var now: @Sendable () -> Date
        var sleep: @Sendable (TimeInterval) async throws -> Void
    }

    let values: Locked<Values>

    /// The authority used when none is given: the public cloud, `common` (work, school and
    /// personal Microsoft accounts).
    public static let defaultAuthorityURL = URL(string: "https://login.microsoftonline.com/common")!

    /// A configuration for `clientId` with the default redirect URI (`http://localhost` on a port
    /// chosen at sign-in) and the default authority.
    public convenience init(clientId: String) {
        self.init(clientId: clientId, redirectUri: nil, authority: nil)
    }

    /// A configuration for `clientId`, `redirectUri` (`nil` for the default) and `authority`
    /// (`nil` for `https://login.microsoftonline.com/common`).
    public init(clientId: String, redirectUri: String?, authority: MSALAuthority?) {
        values = Locked(
            Values(
                clientId: clientId, redirectUri: redirectUri, authority: authority ?? Self.defaultAuthority,
                cacheConfig: MSALCacheConfig()))
    }

    private static let defaultAuthority: MSALAuthority = {
        do {
            return try MSALAADAuthority(url: defaultAuthorityURL)
        } catch {
            preconditionFailure("the default authority URL is a valid AAD authority")
        }
    }()

    private init(copying snapshot: Values) {
        values = Locked(snapshot)
    }

    /// The application (client) id of the app registration.
    public var clientId: String {
        get { values.withLock { $0.clientId } }
        set { values.withLock { $0.clientId = newValue } }
    }

    /// The redirect URI registered for the app; `nil` uses `http://localhost` with a port chosen
    /// at sign-in (RFC 8252 loopback redirect). `http` only on loopback, `https` anywhere; a custom
    /// scheme needs a custom web view.
    public var redirectUri: String? {
        get { values.withLock { $0.redirectUri } }
        set { values.withLock { $0.redirectUri = newValue } }
    }

    /// The default authority for every request that does not name one.
    public var authority: MSALAuthority {
        get { values.withLock { $0.authority } }
        set { values.withLock { $0.authority = newValue } }
    }

    /// Authorities the app trusts without validation: B2C hosts (`*.b2clogin.com`), custom
    /// domains, and loopback `http` authorities of emulators. An authority matches when it is of
    /// the same kind and has the same normalized URL.
    public var knownAuthorities: [MSALAuthority] {
        get { values.withLock { $0.knownAuthorities } }
        set { values.withLock { $0.knownAuthorities = newValue } }
    }

    /// Capabilities the app declares (e.g. `["cp1"]` for claims challenges), sent as the
    /// `xms_cc` claim of every request.
    public var clientApplicationCapabilities: [String]? {
        get { values.withLock { $0.clientApplicationCapabilities } }
        set { values.withLock { $0.clientApplicationCapabilities = newValue } }
    }

    /// Seconds before expiry at which a cached access token is treated as expired. Default 300.
    public var tokenExpirationBuffer: Double {
        get { values.withLock { $0.tokenExpirationBuffer } }
        set { values.withLock { $0.tokenExpirationBuffer = max(0, newValue) } }
    }

    /// Return an expired access token within its extended lifetime when the service is down
    /// (HTTP 5xx). Default `false`.
    public var extendedLifetimeEnabled: Bool {
        get { values.withLock { $0.extendedLifetimeEnabled } }
        set { values.withLock { $0.extendedLifetimeEnabled = newValue } }
    }

    /// Let users of other clouds sign in through the public cloud (`instance_aware=true`).
    /// Default `false`.
    public var multipleCloudsSupported: Bool {
        get { values.withLock { $0.multipleCloudsSupported } }
        set { values.withLock { $0.multipleCloudsSupported = newValue } }
    }

    /// Skip the redirect URI checks. Default `false`.
    public var bypassRedirectURIValidation: Bool {
        get { values.withLock { $0.bypassRedirectURIValidation } }
        set { values.withLock { $0.bypassRedirectURIValidation = newValue } }
    }

    /// A PEM file of certificate authorities to trust for this app's requests instead of the
    /// system's (an emulator's CA, a corporate TLS-inspection root). Ours; `nil` uses the system
    /// store.
    public var certificateAuthorityFile: String? {
        get { values.withLock { $0.certificateAuthorityFile } }
        set { values.withLock { $0.certificateAuthorityFile = newValue } }
    }

    /// Host routing, `HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT` entries (curl's `CONNECT_TO`):
    /// this app's requests for `https://HOST:PORT/...` connect to the other address, while TLS
    /// still verifies `HOST`. Ours; default empty. For tests, an emulator on loopback answers for
    /// `login.microsoftonline.com` (`EntraEmulator.connectTo` of MSALTestSupport); for a
    /// deployment, a fixed address for a host name.
    public var connectTo: [String] {
        get { values.withLock { $0.connectTo } }
        set { values.withLock { $0.connectTo = newValue } }
    }

    /// This app's HTTP settings: retries, timeouts, response limits and the proxy. A value set
    /// here applies to this app only; a value not set follows ``MSALGlobalConfig/httpConfig``
    /// (read at each request). Ours; MSAL for iOS has only the global one.
    public var httpConfig: MSALHTTPConfig {
        values.withLock { $0.httpConfig }
    }

    /// Replaces the system clock of applications made from this configuration, for tests: token
    /// expiry, `refresh_in`, throttling windows and device-code expiry are decided by `now`, and
    /// device-code polling waits with `sleep` (which may move that clock instead of waiting).
    /// MSALTestSupport's `EntraEmulator.applicationConfiguration` sets it to the emulator's clock.
    @_spi(Testing) public func useClock(
        now: @escaping @Sendable () -> Date, sleep: @escaping @Sendable (TimeInterval) async throws -> Void
    ) {
        values.withLock { $0.clock = TestClock(now: now, sleep: sleep) }
    }

    /// Whether sign-in, silent calls, accounts and sign-out go through the broker, for Microsoft
    /// Entra ID (AAD) authorities. ``MSALBrokeredAvailability/none`` by default: MSAL for iOS has
    /// the setting (on `MSALGlobalConfig`, on by default there); on Linux it is per application
    /// and off until set, and it needs ``brokerConnection`` too.
    public var brokerAvailability: MSALBrokeredAvailability {
        get { values.withLock { $0.brokerAvailability } }
        set { values.withLock { $0.brokerAvailability = newValue } }
    }

    /// How the broker is reached: `MSALLinuxBroker()` of the `MSALBroker` product (the session
    /// bus, or a bus address of this application's own). Used only when ``brokerAvailability`` is
    /// ``MSALBrokeredAvailability/auto``.
    public var brokerConnection: (any MSALBrokerConnection)? {
        get { values.withLock { $0.brokerConnection } }
        set { values.withLock { $0.brokerConnection = newValue } }
    }

    /// Where and how tokens are cached.
    public var cacheConfig: MSALCacheConfig {
        values.withLock { $0.cacheConfig }
    }

    /// An independent copy.
    public func copy() -> MSALPublicClientApplicationConfig {
        var snapshot = values.withLock { $0 }
        snapshot.cacheConfig = snapshot.cacheConfig.copy()
        snapshot.httpConfig = snapshot.httpConfig.copy()
        return MSALPublicClientApplicationConfig(copying: snapshot)
    }
}
