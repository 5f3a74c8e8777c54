import Foundation

/// When a request is sent again, exactly as MSAL for iOS/macOS does: up to `retryCount` more
/// times, `retryInterval` seconds apart, after an HTTP 5xx or one of five transient network
/// failures (timed out, cannot find host, cannot connect, connection lost, not connected, which
/// waits 2 seconds). Never after 4xx, 429 or any other failure.
struct RetryPolicy: Sendable {
    var retryCount: Int
    var retryInterval: Double
    /// The wait after ``URLErrorCode/notConnectedToInternet`` (-1009).
    var notConnectedInterval: Double

    init(retryCount: Int = 1, retryInterval: Double = 0.5, notConnectedInterval: Double = 2.0) {
        self.retryCount = retryCount
        self.retryInterval = retryInterval
        self.notConnectedInterval = notConnectedInterval
    }

    /// The policy of ``MSALGlobalConfig/httpConfig`` as it is now.
    static var global: RetryPolicy { RetryPolicy(MSALGlobalConfig.httpConfig) }

    /// The policy of `config` as it is now.
    init(_ config: MSALHTTPConfig) {
        self.init(retryCount: config.retryCount, retryInterval: config.retryInterval)
    }

    /// Network failures worth one more attempt.
    static let retriedURLErrorCodes: Set<Int> = [
        URLErrorCode.timedOut.rawValue,
        URLErrorCode.cannotFindHost.rawValue,
        URLErrorCode.cannotConnectToHost.rawValue,
        URLErrorCode.networkConnectionLost.rawValue,
        URLErrorCode.notConnectedToInternet.rawValue,
    ]

    /// Seconds to wait before sending again after a response with `statusCode`, or `nil` for no retry.
    func delay(afterStatus statusCode: Int, retriesSoFar: Int) -> Double? {
        guard retriesSoFar < retryCount, (500...599).contains(statusCode) else { return nil }
        return retryInterval
    }

    /// Seconds to wait before sending again after the network failure `code`
    /// (an `NSURLErrorDomain` code), or `nil` for no retry.
    func delay(afterURLError code: Int, retriesSoFar: Int) -> Double? {
        guard retriesSoFar < retryCount, Self.retriedURLErrorCodes.contains(code) else { return nil }
        return code == URLErrorCode.notConnectedToInternet.rawValue
            ? max(retryInterval, notConnectedInterval) : retryInterval
    }
}
