import Foundation
import MSALTestSupport
import XCTest

@testable import MSAL

/// The emulator as a server: defaults, several at once, concurrency, prompt shutdown.
final class EntraEmulatorServerTests: XCTestCase {
    func testDefaultsWorkOutOfTheBoxOnTheLoopbackAddress() async throws {
        let emulator = try EmulatorHarness.makeEmulator()
        defer { emulator.stop() }
        XCTAssertGreaterThan(emulator.port, 0)
        XCTAssertEqual(emulator.baseURL.absoluteString, "https://127.0.0.1:\(emulator.port)")
        XCTAssertTrue(emulator.certificateAuthority.certificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: emulator.certificateAuthority.certificateFile))
        XCTAssertTrue(emulator.connectTo.contains("login.microsoftonline.com:443:127.0.0.1:\(emulator.port)"))
        XCTAssertTrue(emulator.connectTo.contains("contosob2c.b2clogin.com:443:127.0.0.1:\(emulator.port)"))
        XCTAssertEqual(emulator.authority(tenant: "common").absoluteString, "https://127.0.0.1:\(emulator.port)/common")
        XCTAssertTrue(emulator.summary.contains(emulator.certificateAuthority.certificateFile))

        let harness = try EmulatorHarness(emulator)
        let tokens = try await harness.signIn(emulator.authority(tenant: "organizations").absoluteString)
        let id = try EmulatorHarness.claims(tokens["id_token"])
        XCTAssertEqual(id["iss"]?.stringValue, "https://127.0.0.1:\(emulator.port)/\(EmulatorTenant.contoso.id)/v2.0")
    }

    func testTwoEmulatorsRunSideBySideWithTheirOwnStateAndCertificates() async throws {
        let first = try EmulatorHarness.makeEmulator()
        let second = try EntraEmulator()
        defer {
            first.stop()
            second.stop()
        }
        XCTAssertNotEqual(first.port, second.port)
        XCTAssertNotEqual(first.certificateAuthority.certificatePEM, second.certificateAuthority.certificatePEM)
        XCTAssertNotEqual(first.signingKeyJWK["kid"], second.signingKeyJWK["kid"])
        first.defaultUsername = EmulatorUser.bob.username

        let tokensOne = try await EmulatorHarness(first).signIn("https://login.microsoftonline.com/common")
        let tokensTwo = try await EmulatorHarness(second).signIn("https://login.microsoftonline.com/common")
        XCTAssertEqual(
            try EmulatorHarness.claims(tokensOne["id_token"])["preferred_username"]?.stringValue,
            EmulatorUser.bob.username)
        XCTAssertEqual(
            try EmulatorHarness.claims(tokensTwo["id_token"])["preferred_username"]?.stringValue,
            EmulatorUser.alice.username)
        XCTAssertEqual(first.requestCount(.token), 1)
        XCTAssertEqual(second.requestCount(.token), 1)

        // A client that trusts the first emulator's CA rejects the second one's certificate.
        let wrongTrust = CurlHTTPTransport(
            configuration: .init(
                caFile: first.certificateAuthority.certificateFile, connectTo: second.connectTo,
                retryPolicy: RetryPolicy(retryCount: 0), timeout: 5))
        do {
            _ = try await wrongTrust.send(
                HTTPRequest(
                    url: try XCTUnwrap(URL(string: "https://login.microsoftonline.com/common/discovery/v2.0/keys"))))
            XCTFail("the second emulator's certificate must not be trusted")
        } catch {
            XCTAssertEqual((error as NSError).domain, NSURLErrorDomain)
        }
    }

    func testManyConcurrentClients() async throws {
        let emulator = try EmulatorHarness.makeEmulator()
        defer { emulator.stop() }
        let caFile = emulator.certificateAuthority.certificateFile
        let url = try XCTUnwrap(
            URL(string: "\(emulator.baseURL.absoluteString)/common/v2.0/.well-known/openid-configuration"))
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    let transport = CurlHTTPTransport(configuration: .init(caFile: caFile, timeout: 10))
                    var ok = 0
                    for _ in 0..<5 where try await transport.send(HTTPRequest(url: url)).statusCode == 200 { ok += 1 }
                    return ok
                }
            }
            var total = 0
            for try await ok in group { total += ok }
            XCTAssertEqual(total, 80)
        }
        XCTAssertEqual(emulator.requestCount(.openIDConfiguration), 80)
        XCTAssertGreaterThanOrEqual(emulator.acceptedConnections, 2)
        XCTAssertLessThan(emulator.acceptedConnections, 80)
    }

    func testStopIsPromptAndClosesThePort() async throws {
        let emulator = try EmulatorHarness.makeEmulator()
        let harness = try EmulatorHarness(emulator, timeout: 2)
        emulator.inject(.delay(seconds: 30), at: .keys)
        let slow = Task { try? await harness.get("\(harness.local)/common/discovery/v2.0/keys") }
        try await Task.sleep(nanoseconds: 100_000_000)
        let start = Date()
        emulator.stop()
        XCTAssertLessThan(Date().timeIntervalSince(start), 1)
        _ = await slow.value
        do {
            _ = try await harness.get("\(harness.local)/common/discovery/v2.0/keys")
            XCTFail("a stopped emulator must not answer")
        } catch {
            XCTAssertEqual((error as NSError).domain, NSURLErrorDomain)
        }
        emulator.stop()
    }

    /// `stop()` removes what `start` made: the CA certificate's folder under the temporary
    /// directory is gone at once, not when the emulator is released (an XCTest case that kept
    /// its emulator leaked a /tmp/swift-msal-ca-* folder per test).
    func testStopRemovesTheCertificateFolderItMade() throws {
        let emulator = try EmulatorHarness.makeEmulator()
        let file = emulator.certificateAuthority.certificateFile
        let folder = (file as NSString).deletingLastPathComponent
        XCTAssertTrue((folder as NSString).lastPathComponent.hasPrefix("swift-msal-ca-"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: file))
        emulator.stop()
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder))
        emulator.stop()

        let server = try LoopbackHTTPSServer { _ in .respond(.text("ok")) }
        let serverFolder = (server.certificateAuthority.certificateFile as NSString).deletingLastPathComponent
        XCTAssertTrue(FileManager.default.fileExists(atPath: serverFolder))
        server.stop()
        XCTAssertFalse(FileManager.default.fileExists(atPath: serverFolder))
    }
}
