import Foundation
import MSAL
import MSALNative
import MSALTestSupport

/// `transport_roundtrip`: a small form POST to a loopback HTTPS server over a kept-alive
/// connection, through the library's transport, and the same request through a bare libcurl
/// easy handle on the calling thread (the floor). Samples are interleaved in blocks so both
/// see the same machine conditions; run it with `--cpu N` so both also see the same thread
/// placement (``CPUPinning``).
enum TransportRoundTrip {
    static func run(runs: Int, cpu: Int?) async throws -> [Measurement] {
        let response = HTTPServerResponse.json(
            status: 200, data: Data(#"{"token_type":"Bearer","expires_in":3599}"#.utf8))
        let server = try LoopbackHTTPSServer { _ in .respond(response) }
        defer { server.stop() }
        let url = server.baseURL.appendingPathComponent("tenant/oauth2/v2.0/token")
        let caFile = server.certificateAuthority.certificateFile
        let parameters: [(name: String, value: String)] = [
            ("client_id", "00000000-0000-0000-0000-000000000001"),
            ("grant_type", "refresh_token"),
            ("scope", "https://graph.microsoft.com/.default openid profile offline_access"),
            ("refresh_token", String(repeating: "r", count: 600)),
        ]

        let probe = TransportProbe(caFile: caFile)
        let body = Array(
            parameters.map { "\($0.name)=\($0.value.replacingOccurrences(of: " ", with: "+"))" }
                .joined(separator: "&").utf8
        )
        let floor = try CurlBlockingEasy(
            CurlRequest(
                url: url.absoluteString,
                method: "POST",
                headers: [
                    ("x-client-SKU", "MSAL.Linux.Swift"), ("x-client-Ver", LibraryInfo.version), ("x-client-OS", "6"),
                    ("x-client-CPU", "64"), ("client-request-id", UUID().uuidString),
                    ("return-client-request-id", "true"), ("Accept", "application/json"),
                    ("Content-Type", "application/x-www-form-urlencoded"),
                ],
                body: body,
                caFile: caFile
            )
        )

        var transport = Measurement(scenario: "transport_roundtrip", params: ["client": "transport"])
        var baseline = Measurement(scenario: "transport_roundtrip", params: ["client": "curl_easy_floor"])
        let block = 10
        for _ in 0..<block {  // warm both connections up
            _ = try await probe.post(url, parameters: parameters)
            _ = try floor.perform()
        }
        var remaining = runs
        while remaining > 0 {
            let count = min(block, remaining)
            for _ in 0..<count {
                transport.samples.append(
                    try await timeNanosecondsAsync {
                        let result = try await probe.post(url, parameters: parameters)
                        precondition(result.status == 200)
                    }
                )
            }
            for _ in 0..<count {
                baseline.samples.append(
                    try timeNanoseconds {
                        let result = try floor.perform()
                        precondition(result.status == 200)
                    }
                )
            }
            remaining -= count
        }
        transport.params["connections"] = server.acceptedConnections
        if let cpu {
            transport.params["cpu"] = cpu
            baseline.params["cpu"] = cpu
        }
        return [transport, baseline]
    }
}

/// The library's transport (``CurlHTTPTransport``, `package` API) with retries off, so timings are
/// of one attempt.
struct TransportProbe {
    private let transport: CurlHTTPTransport

    init(caFile: String?) {
        transport = CurlHTTPTransport(caFile: caFile, retryCount: 0)
    }

    /// Posts `parameters` form-encoded to `url` and returns the status, body size and new connections.
    func post(
        _ url: URL,
        parameters: [(name: String, value: String)]
    ) async throws -> (status: Int, bodyBytes: Int, newConnections: Int) {
        let response = try await transport.send(.formPost(url: url, parameters: parameters))
        return (response.statusCode, response.body.count, response.newConnections)
    }
}
