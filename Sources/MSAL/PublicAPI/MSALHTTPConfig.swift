import MSALNative

/// HTTP settings shared by every request the library sends.
///
/// The defaults match MSAL for iOS/macOS: one retry, half a second apart, and a 300-second
/// request timeout; responses are bounded (1 MiB of body, 64 KiB of headers). Read by the
/// transport when each request starts.
public final class MSALHTTPConfig: Sendable {
    private struct Values {
        var retryCount = 1
        var retryInterval: Double = 0.5
        var timeoutIntervalForRequest: Double = 300
        var maximumResponseBodySize = MSALHTTPConfig.defaultMaximumResponseBodySize
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

    /// The largest response body accepted from a server, in bytes (after content decoding).
    /// Default 1 MiB (1,048,576), far above any discovery, key set, device code or token answer.
    ///
    /// A larger body is refused while it is received, so memory stays bounded whatever a server
    /// sends (an endless or huge answer stops at the limit, at once): the request fails with
    /// `NSURLErrorDomain` code -1103 (`URLError.Code.dataLengthExceedsMaximum`), naming the limit
    /// and the URL, and is not retried. A body announced larger (`Content-Length`) is refused
    /// before it is read. Response headers are bounded too, at 64 KiB in all (same error).
    /// Values below 1 restore the default.
    public var maximumResponseBodySize: Int {
        get { values.withLock { $0.maximumResponseBodySize } }
        set {
            values.withLock {
                $0.maximumResponseBodySize = newValue > 0 ? newValue : MSALHTTPConfig.defaultMaximumResponseBodySize
            }
        }
    }

    /// The default of ``maximumResponseBodySize``: 1 MiB.
    static let defaultMaximumResponseBodySize = 1 << 20

    /// Host redirections, `HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT` (curl's `CONNECT_TO`):
    /// requests for `https://HOST:PORT/...` connect to the other address while TLS still verifies
    /// `HOST`. For tests: point `login.microsoftonline.com:443` at an emulator on loopback
    /// (`EntraEmulator.connectTo`). Read when an application is created. Default empty.
    public var connectTo: [String] {
        get { values.withLock { $0.connectTo } }
        set { values.withLock { $0.connectTo = newValue } }
    }
}
