import Foundation
import MSALTestSupport
import XCTest

/// A real client (curl) accepts the server only with the right CA, host name and validity.
final class LoopbackHTTPSServerCertificateTests: XCTestCase {
    /// curl's CURLE_PEER_FAILED_VERIFICATION.
    private let peerFailedVerification: Int32 = 60

    func testCertificateFromAnotherAuthorityIsRejected() throws {
        let server = try LoopbackHTTPSServer { _ in .respond(.text("ok")) }
        defer { server.stop() }
        let stranger = try TestCertificateAuthority()
        let rejected = try CurlCommand.run(["--cacert", stranger.certificateFile, "\(server.baseURL)/"])
        XCTAssertEqual(rejected.exitCode, peerFailedVerification, rejected.errorOutput)
        // The server is still serving after the failed handshake.
        let accepted = try CurlCommand.run([
            "--cacert", server.certificateAuthority.certificateFile, "\(server.baseURL)/",
        ])
        XCTAssertEqual(accepted.output, "ok", accepted.errorOutput)
        XCTAssertEqual(server.requestCount, 1)
    }

    func testCertificateForAnotherHostIsRejected() throws {
        let authority = try TestCertificateAuthority()
        let other = try authority.issueCertificate(dnsNames: ["other.example"], ipAddresses: [])
        let server = try LoopbackHTTPSServer(certificate: other) { _ in .respond(.text("ok")) }
        defer { server.stop() }
        XCTAssertTrue(server.certificateAuthority === authority)
        let rejected = try CurlCommand.run(["--cacert", authority.certificateFile, "\(server.baseURL)/"])
        XCTAssertEqual(rejected.exitCode, peerFailedVerification, rejected.errorOutput)
        // The same certificate is fine for the name it was issued for.
        let resolved = try CurlCommand.run([
            "--cacert", authority.certificateFile, "--resolve", "other.example:\(server.port):127.0.0.1",
            "https://other.example:\(server.port)/",
        ])
        XCTAssertEqual(resolved.output, "ok", resolved.errorOutput)
    }

    func testExpiredCertificateIsRejected() throws {
        let authority = try TestCertificateAuthority()
        let expired = try authority.issueCertificate(
            notBefore: Date(timeIntervalSinceNow: -2 * 86400),
            notAfter: Date(timeIntervalSinceNow: -86400)
        )
        let server = try LoopbackHTTPSServer(certificate: expired) { _ in .respond(.text("ok")) }
        defer { server.stop() }
        let rejected = try CurlCommand.run(["--cacert", authority.certificateFile, "\(server.baseURL)/"])
        XCTAssertEqual(rejected.exitCode, peerFailedVerification, rejected.errorOutput)
        XCTAssertTrue(rejected.errorOutput.contains("expired"), rejected.errorOutput)
    }

    func testCertificateDetails() throws {
        let authority = try TestCertificateAuthority()
        XCTAssertTrue(authority.certificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
        XCTAssertEqual(try String(contentsOfFile: authority.certificateFile, encoding: .utf8), authority.certificatePEM)
        let certificate = try authority.issueCertificate()
        XCTAssertTrue(certificate.issuer === authority)
        XCTAssertEqual(certificate.dnsNames, ["localhost"])
        XCTAssertEqual(certificate.ipAddresses, ["127.0.0.1", "::1"])
        XCTAssertTrue(certificate.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        XCTAssertEqual(Data(base64Encoded: certificate.spkiSHA256Base64)?.count, 32)
        XCTAssertGreaterThan(certificate.certificateDER.count, 200)
        XCTAssertNotEqual(authority.certificateDER, certificate.certificateDER)
        XCTAssertThrowsError(try authority.issueCertificate(dnsNames: ["a,DNS:b"]))
        XCTAssertThrowsError(try authority.issueCertificate(ipAddresses: ["not-an-ip"]))
    }

    func testAuthorityFileIsRemovedWithTheAuthority() throws {
        var authority: TestCertificateAuthority? = try TestCertificateAuthority()
        let file = try XCTUnwrap(authority?.certificateFile)
        XCTAssertTrue(FileManager.default.fileExists(atPath: file))
        authority = nil
        XCTAssertFalse(FileManager.default.fileExists(atPath: file))
    }
}
