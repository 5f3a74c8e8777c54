import Foundation
import Glibc
import MSALNative
import MSALRedisCacheNative
import MSALTestSupport
import XCTest

/// A private `redis-server` on a free loopback port, started by a test and stopped by its PID:
/// no configuration file, no persistence (unless asked), optionally TLS (a test CA's certificate
/// for 127.0.0.1) and an ACL user.
///
/// Without `redis-server` the test is skipped, unless `MSAL_REQUIRE_REDIS=1` (scripts/test.sh),
/// which makes it a failure.
final class RedisServer {
    let port: Int
    let folder: URL
    /// Set with `tls: true`: the CA file clients trust, and the TLS port.
    let caFile: String?
    let tlsPort: Int?
    private var process: Process?
    private let arguments: [String]

    static let binary = "/usr/bin/redis-server"

    /// `rules`: the ACL user's rules (keys, channels, commands).
    init(
        tls: Bool = false, user: (name: String, password: String)? = nil, rules: [String] = ["~*", "&*", "+@all"],
        extra: [String] = []
    ) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            if ProcessInfo.processInfo.environment["MSAL_REQUIRE_REDIS"] == "1" {
                throw RedisFixtureError("redis-server is not installed; MSAL_REQUIRE_REDIS=1 makes this a failure")
            }
            throw XCTSkip("redis-server is not installed (apt-get install redis-server)")
        }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("msal-redis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        port = try Self.freePort()
        var arguments = [
            "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", folder.path,
            "--daemonize", "no", "--logfile", folder.appendingPathComponent("redis.log").path,
        ]
        if tls {
            let authority = try TestCertificateAuthority()
            let certificate = try authority.issueCertificate()
            let certFile = folder.appendingPathComponent("server.pem").path
            let keyFile = folder.appendingPathComponent("server.key").path
            try certificate.certificatePEM.write(toFile: certFile, atomically: true, encoding: .utf8)
            try certificate.privateKeyPEM.write(toFile: keyFile, atomically: true, encoding: .utf8)
            let caCopy = folder.appendingPathComponent("ca.pem").path
            try authority.certificatePEM.write(toFile: caCopy, atomically: true, encoding: .utf8)
            let tlsPort = try Self.freePort()
            arguments += [
                "--tls-port", String(tlsPort), "--tls-cert-file", certFile, "--tls-key-file", keyFile,
                "--tls-ca-cert-file", caCopy, "--tls-auth-clients", "no",
            ]
            self.caFile = caCopy
            self.tlsPort = tlsPort
        } else {
            caFile = nil
            tlsPort = nil
        }
        if let user {
            // The default user is switched off: only the ACL user may connect.
            arguments +=
                [
                    "--user", user.name, "on", ">\(user.password)",
                ] + rules + ["--user", "default", "off"]
        }
        self.arguments = arguments + extra
        try start(adminUser: user)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// An endpoint for this server (plain TCP unless `tls`).
    func endpoint(tls: Bool = false, timeout: Double = 5) -> RedisEndpoint {
        RedisEndpoint(
            host: "127.0.0.1", port: tls ? tlsPort! : port, tlsCAFile: tls ? caFile : nil, timeout: timeout)
    }

    private var adminUser: (name: String, password: String)?

    /// Starts the server and waits until it answers PING (at most 10 s).
    func start(adminUser: (name: String, password: String)? = nil) throws {
        if let adminUser { self.adminUser = adminUser }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        var endpoint = RedisEndpoint(host: "127.0.0.1", port: port, timeout: 1)
        endpoint.username = self.adminUser?.name
        endpoint.password = self.adminUser?.password
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let connection = try? RedisConnection(endpoint, tls: nil),
                (try? connection.command("PING")) == .status("PONG")
            {
                return
            }
            guard process.isRunning else { break }
            usleep(20_000)
        }
        let log = (try? String(contentsOf: folder.appendingPathComponent("redis.log"), encoding: .utf8)) ?? ""
        stop()
        throw RedisFixtureError("redis-server did not start on port \(port): \(log.suffix(2000))")
    }

    /// Stops the server by its PID (SIGKILL: a crash, no goodbye to clients) and waits for it.
    func stop() {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    /// A loopback port nobody listens on right now.
    static func freePort() throws -> Int {
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        defer { listener.close() }
        return listener.port
    }
}

struct RedisFixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
