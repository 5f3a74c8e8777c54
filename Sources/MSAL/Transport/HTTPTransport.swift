/// Sends HTTP requests for every flow. The library's implementation is ``CurlHTTPTransport``;
/// the protocol separates the layers and lets tests wrap it to count or alter traffic.
protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the response, whatever its status code (after the retries of
    /// the transport's policy).
    ///
    /// - Throws: an `NSError` in `NSURLErrorDomain` when no response could be obtained, with
    ///   ``URLErrorCode/cancelled`` (-999) when the calling task was cancelled.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}
