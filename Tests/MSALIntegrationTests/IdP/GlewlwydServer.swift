import Foundation
import MSALNative
import XCTest

/// The real OpenID Connect server of the integration tests: glewlwyd on loopback HTTPS, started
/// by `scripts/idp/start-glewlwyd.sh`.
///
/// ``shared()`` finds it from the `MSAL_IDP_*` environment variables, else from
/// `${MSAL_IDP_DIR:-<repo>/.idp}/env`. When none answers it runs the script, once per test
/// process, if this machine can (glewlwyd installed, or root with apt-get). Otherwise the test is
/// skipped, unless `MSAL_REQUIRE_IDP=1` (CI): then a missing server fails the test.
///
/// The server's wall clock is movable (``setClockOffset(seconds:)``, through libfaketime), so
/// expiry is tested without sleeping; it is set back to the real time once per test process.
struct GlewlwydServer: Sendable {
    /// `https://127.0.0.1:<port>`.
    let baseURL: URL
    /// The main issuer, `<base>/api/oidc`: one-hour access tokens, device interval 1 s.
    let issuer: URL
    /// The short-lived issuer, `<base>/api/oidcshort`, for expiry tests.
    let shortIssuer: URL
    /// The PEM file of the throwaway CA that issued the server's certificate.
    let caFile: String
    /// The file glewlwyd's libfaketime reads its wall-clock offset from at every time call; see
    /// ``setClockOffset(seconds:)``.
    let clockFile: String
    /// The public client (no secret, PKCE required).
    let clientId: String
    /// Every scope the client may ask for (`openid profile email offline_access api.read`).
    let scopes: [String]
    /// The registered redirect URIs (exact match).
    let redirectURIs: [String]
    /// The test user and its password.
    let user: String
    let password: String
    /// The user's `name` and `email` claims.
    let userDisplayName: String
    let userEmail: String
    /// The administrator (for tests that change the client, such as adding a redirect URI).
    let adminUser: String
    let adminPassword: String
    /// Lifetimes on the short issuer, in seconds.
    let shortAccessTokenLifetime: TimeInterval
    let shortCodeLifetime: TimeInterval
    let shortDeviceCodeLifetime: TimeInterval

    /// Why no server is available.
    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads the env block the start script writes.
    init(environment env: [String: String]) throws(Unavailable) {
        func value(_ name: String) throws(Unavailable) -> String {
            guard let value = env[name], !value.isEmpty else { throw Unavailable(description: "\(name) is not set") }
            return value
        }
        func url(_ name: String) throws(Unavailable) -> URL {
            let text = try value(name)
            guard let url = URL(string: text), url.scheme == "https" else {
                throw Unavailable(description: "\(name) is not an https URL: \(text)")
            }
            return url
        }
        func seconds(_ name: String) throws(Unavailable) -> TimeInterval {
            let text = try value(name)
            guard let seconds = TimeInterval(text), seconds > 0 else {
                throw Unavailable(description: "\(name) is not a number of seconds: \(text)")
            }
            return seconds
        }
        baseURL = try url("MSAL_IDP_BASE_URL")
        issuer = try url("MSAL_IDP_ISSUER")
        shortIssuer = try url("MSAL_IDP_SHORT_ISSUER")
        caFile = try value("MSAL_IDP_CA_FILE")
        clockFile = try value("MSAL_IDP_CLOCK_FILE")
        clientId = try value("MSAL_IDP_CLIENT_ID")
        scopes = try value("MSAL_IDP_SCOPES").split(separator: " ").map(String.init)
        redirectURIs = try value("MSAL_IDP_REDIRECT_URIS").split(separator: " ").map(String.init)
        user = try value("MSAL_IDP_USER")
        password = try value("MSAL_IDP_PASSWORD")
        userDisplayName = try value("MSAL_IDP_USER_NAME")
        userEmail = try value("MSAL_IDP_USER_EMAIL")
        adminUser = try value("MSAL_IDP_ADMIN_USER")
        adminPassword = try value("MSAL_IDP_ADMIN_PASSWORD")
        shortAccessTokenLifetime = try seconds("MSAL_IDP_SHORT_ACCESS_TOKEN_SECONDS")
        shortCodeLifetime = try seconds("MSAL_IDP_SHORT_CODE_SECONDS")
        shortDeviceCodeLifetime = try seconds("MSAL_IDP_SHORT_DEVICE_CODE_SECONDS")
    }

    /// Sets the server's wall clock `seconds` ahead of the real time (0: the real time again), so a
    /// test sees codes and tokens expire without sleeping.
    ///
    /// glewlwyd runs under libfaketime, which reads the offset from ``clockFile`` at every time
    /// call: the next request sees the new clock. The file is replaced by a rename, so the server
    /// never reads half of it. The clock is the whole server's: a test that moves it puts it back
    /// before it ends, and Glewlwyd tests must not run in parallel with it.
    func setClockOffset(seconds: Int) throws {
        let text = (seconds < 0 ? "" : "+") + "\(seconds)\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: clockFile), options: .atomic)
    }

    /// The fixed-port loopback redirect URI the tests use (`http://127.0.0.1:8400/callback`).
    var loopbackRedirectURI: String {
        redirectURIs.first { $0.hasPrefix("http://127.0.0.1:") && $0.hasSuffix("/callback") } ?? redirectURIs[0]
    }

    /// The running server.
    ///
    /// - Throws: `XCTSkip` when there is none and none can be started, or ``Unavailable`` (a test
    ///   failure) when `MSAL_REQUIRE_IDP=1`.
    static func shared() async throws -> GlewlwydServer {
        switch await located.value {
        case .success(let server):
            return server
        case .failure(let reason):
            if ProcessInfo.processInfo.environment["MSAL_REQUIRE_IDP"] == "1" {
                throw Unavailable(description: "MSAL_REQUIRE_IDP=1 but no glewlwyd server is available: \(reason)")
            }
            throw XCTSkip(
                "No glewlwyd server (\(reason)). Run scripts/idp/start-glewlwyd.sh as root, "
                    + "or set MSAL_REQUIRE_IDP=1 to make this a failure.")
        }
    }

    // MARK: Finding or starting the server, once per process

    /// The repository root: this file is `<root>/Tests/MSALIntegrationTests/IdP/GlewlwydServer.swift`.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static var stateDirectory: URL {
        if let dir = ProcessInfo.processInfo.environment["MSAL_IDP_DIR"], !dir.isEmpty {
            return URL(fileURLWithPath: dir)
        }
        return repositoryRoot.appendingPathComponent(".idp")
    }

    static var startScript: URL { repositoryRoot.appendingPathComponent("scripts/idp/start-glewlwyd.sh") }

    /// The longest the start script may take (a cold start installs packages: about 25 s here).
    static let startTimeout: Duration = .seconds(300)

    /// The server, its clock put back to the real time once per process: a test process killed
    /// while its clock was moved leaves it moved.
    private static let located = Task<Result<GlewlwydServer, Unavailable>, Never> {
        await locate().map { server in
            try? server.setClockOffset(seconds: 0)
            return server
        }
    }

    private static func locate() async -> Result<GlewlwydServer, Unavailable> {
        let environment = ProcessInfo.processInfo.environment
        if environment["MSAL_IDP_ISSUER"] != nil {
            // The caller exported the env block: trust it, and report when it does not answer.
            do throws(Unavailable) {
                let server = try GlewlwydServer(environment: environment)
                try await server.checkAnswers()
                return .success(server)
            } catch {
                return .failure(Unavailable(description: "from the MSAL_IDP_* environment: \(error)"))
            }
        }
        let envFile = stateDirectory.appendingPathComponent("env")
        if let server = try? GlewlwydServer(environment: readEnvFile(envFile)),
            (try? await server.checkAnswers()) != nil
        {
            return .success(server)
        }
        if let reason = reasonItCannotStart() {
            return .failure(Unavailable(description: reason))
        }
        do throws(Unavailable) {
            try await runStartScript()
            stopAtExit()
            let server = try GlewlwydServer(environment: readEnvFile(envFile))
            try await server.checkAnswers()
            print("GlewlwydServer: started \(server.issuer); stopped when the tests end (MSAL_IDP_KEEP=1 keeps it)")
            return .success(server)
        } catch {
            return .failure(error)
        }
    }

    static var stopScript: URL { repositoryRoot.appendingPathComponent("scripts/idp/stop-glewlwyd.sh") }

    /// The server this test process started is stopped when the process exits (XCTest ends with
    /// `exit`), so a test run leaves no daemon behind; `MSAL_IDP_KEEP=1` keeps it for the next run.
    private static func stopAtExit() {
        guard ProcessInfo.processInfo.environment["MSAL_IDP_KEEP"] != "1" else { return }
        atexit {
            let process = Process()
            process.executableURL = GlewlwydServer.stopScript
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try? process.run()
            process.waitUntilExit()
        }
    }

    /// `nil` when the start script can run here, else why not.
    private static func reasonItCannotStart() -> String? {
        let files = FileManager.default
        guard files.isExecutableFile(atPath: startScript.path) else { return "\(startScript.path) is missing" }
        // libfaketime's thread-safe library, in the multiarch directory (/usr/lib/<triplet>/faketime).
        let libraryDirectories = (try? files.contentsOfDirectory(atPath: "/usr/lib")) ?? []
        let faketime = libraryDirectories.contains {
            files.isReadableFile(atPath: "/usr/lib/\($0)/faketime/libfaketimeMT.so.1")
        }
        if files.isExecutableFile(atPath: "/usr/bin/glewlwyd") && faketime { return nil }
        guard getuid() == 0 else {
            return "glewlwyd or libfaketime is not installed and this process is not root, so it cannot be installed"
        }
        guard files.isExecutableFile(atPath: "/usr/bin/apt-get") else {
            return "glewlwyd or libfaketime is not installed and there is no apt-get"
        }
        return nil
    }

    /// Runs the start script, its output going to a log file quoted on failure.
    private static func runStartScript() async throws(Unavailable) {
        let logURL = FileManager.default.temporaryDirectory
            .appendingPathComponent("msal-idp-start-\(getpid()).log")
        guard FileManager.default.createFile(atPath: logURL.path, contents: nil),
            let log = try? FileHandle(forWritingTo: logURL)
        else { throw Unavailable(description: "cannot create \(logURL.path)") }
        defer {
            try? log.close()
            try? FileManager.default.removeItem(at: logURL)
        }
        let process = Process()
        process.executableURL = startScript
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        let timedOut = Locked(false)
        let timeout = Task {
            try await Task.sleep(for: startTimeout)
            timedOut.withLock { $0 = true }
            process.terminate()
        }
        // Foundation notices the exit when a socket the child inherits closes: the script closes
        // it in the daemon it leaves running, so the exit is seen as soon as the script ends.
        let launched: Result<Int32, Unavailable> = await withCheckedContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: .success($0.terminationStatus)) }
            do {
                try process.run()
            } catch {
                continuation.resume(returning: .failure(Unavailable(description: "cannot run the script: \(error)")))
            }
        }
        timeout.cancel()
        let status = try launched.get()
        guard status == 0 else {
            let output = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
            let tail = output.split(separator: "\n").suffix(15).joined(separator: "\n")
            throw Unavailable(
                description: "\(startScript.path) "
                    + (timedOut.withLock { $0 } ? "took longer than \(startTimeout)" : "exited with status \(status)")
                    + ":\n" + tail)
        }
    }

    /// The `NAME=value` lines of an env file (`export ` prefixes and single quotes allowed).
    static func readEnvFile(_ url: URL) -> [String: String] {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [:] }
        var result: [String: String] = [:]
        for rawLine in text.split(separator: "\n") {
            var line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("export ") { line.removeFirst("export ".count) }
            guard let equals = line.firstIndex(of: "=") else { continue }
            var value = String(line[line.index(after: equals)...])
            if value.count >= 2, value.hasPrefix("'"), value.hasSuffix("'") {
                value = String(value.dropFirst().dropLast())
            }
            result[String(line[..<equals])] = value
        }
        return result
    }

    /// Whether both issuers' discovery documents answer 200 within a few seconds.
    func checkAnswers() async throws(Unavailable) {
        let client: CurlClient
        do {
            client = try CurlClient()
        } catch {
            throw Unavailable(description: "libcurl: \(error)")
        }
        for issuer in [issuer, shortIssuer] {
            let url = issuer.absoluteString + "/.well-known/openid-configuration"
            do {
                let response = try await client.perform(
                    CurlRequest(url: url, caFile: caFile, connectTimeout: 3, timeout: 5))
                guard response.status == 200 else {
                    throw Unavailable(description: "\(url) answered HTTP \(response.status)")
                }
            } catch let error as Unavailable {
                throw error
            } catch {
                throw Unavailable(description: "\(url) does not answer: \(error)")
            }
        }
    }
}
