/// One HTTP exchange for libcurl to perform: everything is copied into the transfer, so the
/// value can be built on any task and handed to the transfer loop.
package struct CurlRequest: Sendable {
    /// The absolute `http` or `https` URL.
    package var url: String
    /// The method: `GET`, `POST`, or any other token sent as is. A `HEAD` without a body ends
    /// with the response head, whatever `Content-Length` it announces.
    package var method: String
    /// Request headers in the order they are sent.
    package var headers: [(name: String, value: String)]
    /// The request body, sent with a `Content-Length`; `nil` for none.
    package var body: [UInt8]?
    /// A PEM file of certificate authorities to trust instead of the system's, or `nil`.
    package var caFile: String?
    /// Connection redirections in curl's `CURLOPT_CONNECT_TO` form,
    /// `HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT`: requests for `https://HOST:PORT/...` go to
    /// the other address while TLS still verifies `HOST`. Lets a loopback emulator answer for
    /// real identity-provider host names in tests.
    package var connectTo: [String]
    /// The proxy (`CURLOPT_PROXY`: `http://host:port`, `socks5://...`); `nil` lets libcurl read
    /// the environment (`https_proxy`, `no_proxy`), `""` uses no proxy at all.
    package var proxy: String?
    /// The most seconds to spend connecting (TCP and TLS).
    package var connectTimeout: Double
    /// The most seconds for the whole exchange.
    package var timeout: Double
    /// The largest response body accepted, in bytes (after content decoding). A larger body is
    /// refused as soon as it is announced (`Content-Length`) or its bytes pass the limit: the
    /// exchange fails with ``CurlError/exceededLimit`` set, and at most this much is buffered.
    package var maximumBodySize: Int
    /// The largest response head accepted, status lines and header fields together, in bytes.
    package var maximumHeaderSize: Int

    /// The default ``maximumBodySize``: 1 MiB.
    package static let defaultMaximumBodySize = 1 << 20
    /// The default ``maximumHeaderSize``: 64 KiB.
    package static let defaultMaximumHeaderSize = 64 << 10

    package init(
        url: String,
        method: String = "GET",
        headers: [(name: String, value: String)] = [],
        body: [UInt8]? = nil,
        caFile: String? = nil,
        connectTo: [String] = [],
        proxy: String? = nil,
        connectTimeout: Double = 30,
        timeout: Double = 300,
        maximumBodySize: Int = CurlRequest.defaultMaximumBodySize,
        maximumHeaderSize: Int = CurlRequest.defaultMaximumHeaderSize
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.caFile = caFile
        self.connectTo = connectTo
        self.proxy = proxy
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.maximumBodySize = maximumBodySize
        self.maximumHeaderSize = maximumHeaderSize
    }
}

/// What the server answered.
package struct CurlResponse: Sendable {
    /// The HTTP status code of the final response.
    package var status: Int
    /// The final response's headers, in the order received.
    package var headers: [(name: String, value: String)]
    /// The response body (content-decoded).
    package var body: [UInt8]
    /// How many new connections libcurl opened for this exchange (0 when a kept-alive one was reused).
    package var newConnections: Int
}

/// A failed exchange: libcurl's result code with its message, and what the TLS layer reported.
package struct CurlError: Error, Sendable, CustomStringConvertible {
    /// The `CURLcode`.
    package var code: Int
    /// curl's detailed message (its error buffer), or the generic text of the code.
    package var message: String
    /// The operating system's `errno` of the last connect failure, 0 when none.
    package var osErrno: Int
    /// OpenSSL's certificate verification result (`X509_V_ERR_*`), 0 when verification passed or did not run.
    package var certificateVerifyResult: Int
    /// The limit of ``CurlRequest`` the response passed, when that is why the exchange stopped
    /// (``code`` is then ``fileSizeExceededCode``).
    package var exceededLimit: ResponseLimit?

    /// A bound on what a response may make the client hold.
    package enum ResponseLimit: Sendable, Equatable {
        /// ``CurlRequest/maximumBodySize``, in bytes.
        case body(Int)
        /// ``CurlRequest/maximumHeaderSize``, in bytes.
        case headers(Int)
    }

    package init(
        code: Int, message: String, osErrno: Int = 0, certificateVerifyResult: Int = 0,
        exceededLimit: ResponseLimit? = nil
    ) {
        self.code = code
        self.message = message
        self.osErrno = osErrno
        self.certificateVerifyResult = certificateVerifyResult
        self.exceededLimit = exceededLimit
    }

    /// `CURLE_FILESIZE_EXCEEDED`, the code of an exchange stopped by a response limit.
    package static let fileSizeExceededCode = 63

    /// The error of a transfer cancelled by its caller.
    package static let cancelled = CurlError(code: cancelledCode, message: "The request was cancelled")

    /// The transfer was cancelled by the caller.
    package var isCancellation: Bool { code == Self.cancelledCode }

    /// Our code for a transfer removed because its task was cancelled (`CURLE_ABORTED_BY_CALLBACK`).
    package static let cancelledCode = 42

    package var description: String { "curl error \(code): \(message)" }
}
