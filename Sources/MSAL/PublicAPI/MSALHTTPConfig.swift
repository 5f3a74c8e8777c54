import MSALNative

/// HTTP settings: retries, timeouts, response limits and the proxy.
///
/// There are two kinds of instance. ``MSALGlobalConfig/httpConfig`` holds the process-wide
/// defaults, as in MSAL for iOS/macOS. Each ``MSALPublicClientApplicationConfig`` has its own
/// (``MSALPublicClientApplicationConfig/httpConfig``): a value set there applies to that
/// application only, and a value not set follows the global one. Both are read by the transport
/// when each request starts.
///
/// The defaults match MSAL for iOS/macOS: one retry, half a second apart, and a 300-second
/// request timeout; responses are bounded (1 MiB of body, 64 KiB of headers).
public final class MSALHTTPConfig: Sendable {
    private struct Values {
        var retryCount: Int?
        var retryInterval: Double?
        var timeoutIntervalForRequest: Double?
        var maximumResponseBodySize: Int?
        var proxy: String?
    }

    private let values: Locked<Values>
    /// Where unset values come from: the global configuration for an application's settings,
    /// `nil` for the global configuration itself (whose unset values are the defaults).
    private let fallback: MSALHTTPConfig?

    /// The global configuration.
    init() {
        values = Locked(Values())
        fallback = nil
    }

    /// An application's configuration, following `fallback` for what it does not set.
    init(following fallback: MSALHTTPConfig) {
        values = Locked(Values())
        self.fallback = fallback
    }

    private init(copying values: Values, fallback: MSALHTTPConfig?) {
        self.values = Locked(values)
        self.fallback = fallback
    }

    /// An independent copy with the same values (and the same fallback).
    func copy() -> MSALHTTPConfig {
        MSALHTTPConfig(copying: values.withLock { $0 }, fallback: fallback)
    }

    /// How many times a request is retried after a 5xx response or a transient network failure
    /// (timed out, cannot find host, cannot connect, connection lost, not connected). Default 1.
    /// Requests answered with 4xx or 429 are never retried.
    public var retryCount: Int {
        get { values.withLock { $0.retryCount } ?? fallback?.retryCount ?? 1 }
        set { values.withLock { $0.retryCount = max(0, newValue) } }
    }

    /// Seconds to wait before a retry. Default 0.5. When the network is unreachable the wait is
    /// raised to 2 seconds, as MSAL does.
    public var retryInterval: Double {
        get { values.withLock { $0.retryInterval } ?? fallback?.retryInterval ?? 0.5 }
        set { values.withLock { $0.retryInterval = max(0, newValue) } }
    }

    /// The longest a single request may take, in seconds, from connecting to the last byte.
    /// Default 300.
    public var timeoutIntervalForRequest: Double {
        get { values.withLock { $0.timeoutIntervalForRequest } ?? fallback?.timeoutIntervalForRequest ?? 300 }
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
        get {
            values.withLock { $0.maximumResponseBodySize } ?? fallback?.maximumResponseBodySize
                ?? MSALHTTPConfig.defaultMaximumResponseBodySize
        }
        set {
            values.withLock {
                $0.maximumResponseBodySize = newValue > 0 ? newValue : MSALHTTPConfig.defaultMaximumResponseBodySize
            }
        }
    }

    /// The default of ``maximumResponseBodySize``: 1 MiB.
    static let defaultMaximumResponseBodySize = 1 << 20

    /// The proxy every request goes through, as libcurl takes it (`http://proxy.example:3128`,
    /// `socks5h://127.0.0.1:1080`). Default `nil`: the environment decides (`https_proxy`,
    /// `HTTPS_PROXY`, `all_proxy`, `no_proxy`). An empty string uses no proxy, whatever the
    /// environment says. On an application's configuration, `nil` follows the global one.
    public var proxy: String? {
        get { values.withLock { $0.proxy } ?? fallback?.proxy }
        set { values.withLock { $0.proxy = newValue } }
    }
}
