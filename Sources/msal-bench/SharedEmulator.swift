import Dispatch
import Foundation
import MSALNative
import MSALTestSupport

/// The emulator a network scenario talks to: one in this process (the default), or one that
/// `msal-bench --scenario emulator` serves in another process, driven through its control server
/// (`--emulator-url URL --emulator-ca FILE`). With the second, msal-bench and
/// `scripts/bench-msal-python.py` measure against the very same emulator process.
protocol BenchEmulator: Sendable {
    /// The PEM file of the emulator's certificate authority.
    var caFile: String { get }
    /// curl `CONNECT_TO` entries that send the Microsoft host names to the emulator.
    var connectTo: [String] { get }
    /// How many token requests with `grant_type` (any, when `nil`) reached the emulator so far.
    func tokenRequests(grantType: EmulatorGrantType?) throws -> Int
    /// Sets the lifetime (`expires_in`) of the access tokens it issues from now on.
    func setAccessTokenLifetime(_ seconds: Int) throws
    /// Stops an emulator of this process; nothing for a remote one.
    func stop()
}

/// An emulator in this process.
struct LocalEmulator: BenchEmulator {
    let emulator: EntraEmulator

    var caFile: String { emulator.certificateAuthority.certificateFile }
    var connectTo: [String] { emulator.connectTo }

    func tokenRequests(grantType: EmulatorGrantType?) -> Int {
        grantType.map { emulator.tokenRequestCount(grantType: $0) } ?? emulator.requestCount(.token)
    }

    func setAccessTokenLifetime(_ seconds: Int) {
        var lifetimes = emulator.lifetimes
        lifetimes.accessToken = seconds
        emulator.lifetimes = lifetimes
    }

    func stop() { emulator.stop() }
}

/// An emulator of another `msal-bench --scenario emulator` process, through its control server.
struct RemoteEmulator: BenchEmulator {
    let controlURL: String
    let caFile: String
    let connectTo: [String]

    init(controlURL: String, caFile: String) throws {
        self.controlURL = controlURL.hasSuffix("/") ? String(controlURL.dropLast()) : controlURL
        self.caFile = caFile
        let info = try Self.call("\(self.controlURL)/info", method: "GET", caFile: caFile)
        guard let connectTo = info["connect_to"] as? [String] else {
            throw BenchmarkError("the emulator control server at \(controlURL) sent no connect_to")
        }
        self.connectTo = connectTo
    }

    func tokenRequests(grantType: EmulatorGrantType?) throws -> Int {
        let counts = try Self.call("\(controlURL)/counts", method: "GET", caFile: caFile)
        guard let grantType else {
            return (counts["endpoints"] as? [String: Any])?[EmulatorEndpoint.token.rawValue] as? Int ?? 0
        }
        return (counts["grants"] as? [String: Any])?[grantType.rawValue] as? Int ?? 0
    }

    func setAccessTokenLifetime(_ seconds: Int) throws {
        _ = try Self.call("\(controlURL)/access-token-lifetime?seconds=\(seconds)", method: "POST", caFile: caFile)
    }

    func stop() {}

    private static func call(_ url: String, method: String, caFile: String) throws -> [String: Any] {
        let response = try CurlBlockingEasy(CurlRequest(url: url, method: method, body: [], caFile: caFile))
            .performReturningResponse()
        guard response.status == 200,
            let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        else { throw BenchmarkError("the emulator control server answered \(method) \(url) with \(response.status)") }
        return object
    }
}

/// `msal-bench --scenario emulator [--port N]`: the benchmark emulator (the fixture's tenant and
/// client added, refresh tokens reused) and beside it a control server on another loopback port
/// with the same certificate authority:
///
/// - `GET /info`: `{"port", "ca_file", "connect_to"}`
/// - `GET /counts`: `{"endpoints": {name: n}, "grants": {grant_type: n}, "total": n}`
/// - `POST /access-token-lifetime?seconds=N`: the `expires_in` of access tokens issued from now on
///
/// Prints one JSON line (`port`, `ca_file`, `connect_to`, `control_url`) and serves until SIGINT
/// or SIGTERM.
enum SharedEmulator {
    static func serve(port: Int?) throws {
        let emulator = try ApplicationScenarios.emulator(port: port ?? 0)
        let info: [String: any Sendable] = [
            "port": emulator.port, "ca_file": emulator.certificateAuthority.certificateFile,
            "connect_to": emulator.connectTo,
        ]
        let control = try LoopbackHTTPSServer(certificate: emulator.certificate) { request in
            switch (request.method, request.path) {
            case ("GET", "/info"):
                return .respond(.json(info))
            case ("GET", "/counts"):
                let endpoints = Dictionary(
                    uniqueKeysWithValues: EmulatorEndpoint.allCases.map { ($0.rawValue, emulator.requestCount($0)) })
                let grants = Dictionary(
                    uniqueKeysWithValues: EmulatorGrantType.allCases.map {
                        ($0.rawValue, emulator.tokenRequestCount(grantType: $0))
                    })
                let counts: [String: any Sendable] = [
                    "endpoints": endpoints, "grants": grants, "total": emulator.totalRequestCount,
                ]
                return .respond(.json(counts))
            case ("POST", "/access-token-lifetime"):
                guard let seconds = request.queryValue("seconds").flatMap(Int.init), seconds > 0 else {
                    return .respond(.json(status: 400, ["error": "seconds must be a positive number"]))
                }
                LocalEmulator(emulator: emulator).setAccessTokenLifetime(seconds)
                return .respond(.json(["access_token_lifetime": seconds]))
            default:
                return .respond(.json(status: 404, ["error": "no such control endpoint"]))
            }
        }
        var line = info
        line["control_url"] = control.baseURL.absoluteString
        let data = try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys, .withoutEscapingSlashes])
        // Unbuffered, so a parent reading a pipe sees it at once.
        FileHandle.standardOutput.write(data + Data("\n".utf8))
        waitForTermination()
        control.stop()
        emulator.stop()
    }

    private static func waitForTermination() {
        let done = DispatchSemaphore(value: 0)
        var sources: [DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { @Sendable in done.signal() }
            source.resume()
            sources.append(source)
        }
        done.wait()
        withExtendedLifetime(sources) {}
    }
}
