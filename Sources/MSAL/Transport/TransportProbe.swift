package import Foundation

/// The transport as the benchmark executable and tools of this package see it (`package`
/// access): one object that sends form posts through the real ``CurlHTTPTransport``.
package struct TransportProbe: Sendable {
    private let transport: CurlHTTPTransport

    /// A transport trusting `caFile`, with retries off so timings are of one attempt.
    package init(caFile: String?) throws {
        transport = CurlHTTPTransport(
            configuration: .init(caFile: caFile, retryPolicy: RetryPolicy(retryCount: 0))
        )
    }

    /// Posts `parameters` form-encoded to `url` and returns the status, body size and new connections.
    package func post(
        _ url: URL,
        parameters: [(name: String, value: String)]
    ) async throws -> (status: Int, bodyBytes: Int, newConnections: Int) {
        let response = try await transport.send(.formPost(url: url, parameters: parameters))
        return (response.statusCode, response.body.count, response.newConnections)
    }
}
