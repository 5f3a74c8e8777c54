import MSALNative

/// HTTP settings shared by every request the library sends.
///
/// The defaults match MSAL for iOS/macOS: one retry, half a second apart, and a 300-second
/// request timeout. Read by the transport when each request starts.
public final class MSALHTTPConfig: Sendable {
    private struct Values {
        var retryCount = 1
        var retryInterval: Double = 0.5
        var timeoutIntervalForRequest: Double = 300
        var connectTo: [String] = []
    }

    private let values = Locked(Values())

    init() {}

    /// How many times a request is retried after a 5xx response or a transient network failure
    /// (timed out, cannot find host, cannot connect, connection lost, not connected). Default 1.
    /// Requests answered with 4xx or 429 are never retried.
    public var retryCount: Int {
        get { values.withLock { $0.retryCount } }
        set { values.withLock { $0.retryCount = max(0, newValue) } }
    }

    /// Seconds to wait before a retry. Default 0.5. When the network is unreachable the wait is
    /// raised to 2 seconds, as MSAL does.
    public var retryInterval: Double {
        get { values.withLock { $0.retryInterval } }
        set { values.withLock { $0.retryInterval = max(0, newValue) } }
    }

    /// The longest a single request may take, in seconds, from connecting to the last byte.
    /// Default 300.
    public var timeoutIntervalForRequest: Double {
        get { values.withLock { $0.timeoutIntervalForRequest } }
        set { values.withLock { $0.timeoutIntervalForRequest = newValue > 0 ? newValue : 300 } }
    }

    /// Host redirections, `HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT` (curl's `CONNECT_TO`):
    /// requests for `https://HOST:PORT/...` connect to the other address while TLS still verifies
    /// `HOST`. For tests: point `login.microsoftonline.com:443` at an emulator on loopback
    /// (`EntraEmulator.connectTo`). Read when an application is created. Default empty.
    public var connectTo: [String] {
        get { values.withLock { $0.connectTo } }
        set { values.withLock { $0.connectTo = newValue } }
    }
}
