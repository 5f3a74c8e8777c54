import Foundation
import MSALNative

/// The library's HTTP transport: libcurl with TLS verification always on, kept-alive
/// connections, MSAL's retry policy, bounded responses, no credential over plain HTTP
/// (``PlainHTTPPolicy``), and failures as `NSURLErrorDomain` errors with Apple's numbers.
package final class CurlHTTPTransport: HTTPTransport {
    /// How the transport is set up.
    struct Configuration: Sendable {
        /// A PEM file of certificate authorities to trust instead of the system's (private roots:
        /// emulators, corporate TLS inspection), or `nil` for the system store.
        var caFile: String?
        /// Host redirections for tests, `HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT` (curl's
        /// `CONNECT_TO`): an emulator on loopback answers for real host names, TLS still checks them.
        var connectTo: [String]
        /// The HTTP settings read at each request (retries, timeout, body limit, proxy) where
        /// the values below do not override them; `nil` for ``MSALGlobalConfig/httpConfig``.
        var httpConfig: MSALHTTPConfig?
        /// The retry policy; `nil` reads ``httpConfig`` at each request.
        var retryPolicy: RetryPolicy?
        /// The longest one attempt may take; `nil` reads
        /// ``MSALHTTPConfig/timeoutIntervalForRequest`` at each request.
        var timeout: Double?
        /// The longest connecting (TCP and TLS) may take, capped by the request timeout.
        var connectTimeout: Double
        /// The largest response body accepted; `nil` reads
        /// ``MSALHTTPConfig/maximumResponseBodySize`` at each request.
        var maximumResponseBodySize: Int?
        /// The largest response head accepted (status line and header fields), in bytes.
        var maximumResponseHeaderSize: Int
        /// The plain-HTTP origins a request carrying a credential may go to: those of the
        /// loopback authorities the application listed as known (``PlainHTTPPolicy``).
        var plainHTTPOrigins: Set<HTTPOrigin>

        init(
            caFile: String? = nil,
            connectTo: [String] = [],
            httpConfig: MSALHTTPConfig? = nil,
            retryPolicy: RetryPolicy? = nil,
            timeout: Double? = nil,
            connectTimeout: Double = 30,
            maximumResponseBodySize: Int? = nil,
            maximumResponseHeaderSize: Int = CurlRequest.defaultMaximumHeaderSize,
            plainHTTPOrigins: Set<HTTPOrigin> = []
        ) {
            self.caFile = caFile
            self.connectTo = connectTo
            self.httpConfig = httpConfig
            self.retryPolicy = retryPolicy
            self.timeout = timeout
            self.connectTimeout = connectTimeout
            self.maximumResponseBodySize = maximumResponseBodySize
            self.maximumResponseHeaderSize = maximumResponseHeaderSize
            self.plainHTTPOrigins = plainHTTPOrigins
        }
    }

    let configuration: Configuration
    private let plainHTTPPolicy: PlainHTTPPolicy
    /// The libcurl client, made by the first request: an application that finds every token in
    /// its cache never loads libcurl nor starts the client's thread.
    private let client = Locked<CurlClient?>(nil)

    init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        plainHTTPPolicy = PlainHTTPPolicy(allowedOrigins: configuration.plainHTTPOrigins)
    }

    /// A transport with the default settings but `caFile` (`nil`: the system's roots) and
    /// `retryCount` retries (0: each ``send(_:)`` is one attempt).
    package convenience init(caFile: String?, retryCount: Int) {
        self.init(configuration: Configuration(caFile: caFile, retryPolicy: RetryPolicy(retryCount: retryCount)))
    }

    /// The client, made on first use.
    /// - Throws: an `MSALErrorDomain` error when libcurl cannot be loaded or initialised.
    private func curlClient() throws -> CurlClient {
        try client.withLock { client in
            if let client { return client }
            do {
                let made = try CurlClient()
                client = made
                return made
            } catch {
                throw MSALErrors.make(
                    .internalErrorUnexpected,
                    "libcurl could not be initialised (\(String(describing: error))). Check that libcurl is installed."
                )
            }
        }
    }

    package func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard plainHTTPPolicy.decision(for: request) == .send else {
            let refusal = PlainHTTPPolicy.refusal(for: request)
            Log.error(
                "Refused \(request.method.rawValue) \(redacting: request.url.withoutQuery): a credential to a URL that is not https (NSURLError \(refusal.code))",
                correlationId: request.correlationId)
            throw refusal
        }
        let policy =
            request.retries
            ? configuration.retryPolicy ?? RetryPolicy(configuration.httpConfig ?? MSALGlobalConfig.httpConfig)
            : RetryPolicy(retryCount: 0)
        let curlRequest = makeCurlRequest(request)
        let client = try curlClient()
        var target: String { "\(request.method.rawValue) \(request.url.host ?? "")" }
        var retries = 0
        while true {
            Log.verbose(
                "Sending \(request.method.rawValue) \(redacting: request.url)", correlationId: request.correlationId)
            // Timed only for the verbose log line.
            let start = Log.isEnabled(.verbose) ? ContinuousClock.now : nil
            let outcome: Result<CurlResponse, CurlError>
            do {
                outcome = .success(try await client.perform(curlRequest))
            } catch {
                outcome = .failure(error)
            }
            switch outcome {
            case .success(let response):
                if let start {
                    Log.verbose(
                        "Received HTTP \(response.status) for \(target) in \((ContinuousClock.now - start).milliseconds) ms",
                        correlationId: request.correlationId
                    )
                }
                if let delay = policy.delay(afterStatus: response.status, retriesSoFar: retries) {
                    Log.warning(
                        "HTTP \(response.status) from \(target); retrying in \(delay) s",
                        correlationId: request.correlationId
                    )
                    retries += 1
                    try await sleep(seconds: delay, request: request)
                    continue
                }
                return HTTPResponse(
                    statusCode: response.status,
                    headers: HTTPHeaders(response.headers),
                    body: Data(response.body),
                    newConnections: response.newConnections
                )
            case .failure(let error):
                let urlError = CurlErrorMapping.urlError(
                    for: error, url: request.url, correlationId: request.correlationId)
                if urlError.code == URLErrorCode.cancelled.rawValue {
                    Log.info("\(target) was cancelled", correlationId: request.correlationId)
                    throw urlError
                }
                if let delay = policy.delay(afterURLError: urlError.code, retriesSoFar: retries) {
                    Log.warning(
                        "\(target) failed (NSURLError \(urlError.code), curl \(error.code)); retrying in \(delay) s",
                        correlationId: request.correlationId
                    )
                    retries += 1
                    try await sleep(seconds: delay, request: request)
                    continue
                }
                Log.error(
                    "\(target) failed: NSURLError \(urlError.code), curl \(error.code): \(error.message)",
                    correlationId: request.correlationId
                )
                throw urlError
            }
        }
    }

    private func makeCurlRequest(_ request: HTTPRequest) -> CurlRequest {
        let httpConfig = configuration.httpConfig ?? MSALGlobalConfig.httpConfig
        let timeout = configuration.timeout ?? httpConfig.timeoutIntervalForRequest
        let maximumBodySize =
            request.maximumResponseBodySize ?? configuration.maximumResponseBodySize
            ?? httpConfig.maximumResponseBodySize
        // The correlation header goes last: it is the one that changes with every request, and
        // the curl handle keeps the header nodes before the first that changed.
        var headers = LibraryInfo.clientHeaders
        headers.reserveCapacity(headers.count + request.headers.count + 3)
        headers.append(("return-client-request-id", "true"))
        if !request.headers.contains(where: { ASCII.equalsIgnoringCase($0.name, "Accept") }) {
            headers.append(("Accept", "application/json"))
        }
        headers.append(contentsOf: request.headers)
        headers.append(("client-request-id", CorrelationID.string(request.correlationId)))
        return CurlRequest(
            url: request.url.absoluteString,
            method: request.method.rawValue,
            headers: headers,
            body: request.body,
            caFile: configuration.caFile,
            connectTo: configuration.connectTo,
            proxy: httpConfig.proxy,
            connectTimeout: min(configuration.connectTimeout, timeout),
            timeout: timeout,
            maximumBodySize: maximumBodySize,
            maximumHeaderSize: configuration.maximumResponseHeaderSize
        )
    }

    /// Waits before a retry; a cancelled task stops waiting and fails as cancelled.
    private func sleep(seconds: Double, request: HTTPRequest) async throws {
        do {
            try await Task.sleep(for: .milliseconds(Int((seconds * 1000).rounded())))
        } catch {
            throw CurlErrorMapping.urlError(
                for: .cancelled,
                url: request.url,
                correlationId: request.correlationId
            )
        }
    }
}

extension Duration {
    /// The duration in whole milliseconds.
    fileprivate var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
