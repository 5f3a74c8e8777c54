import Foundation
import MSALNative
import MSALTestSupportNative
import XCTest

/// Certificates made by X509Certificate.issue, checked by the openssl command-line tool.
final class TLSCertificateTests: XCTestCase {
    private let now = Int64(Date().timeIntervalSince1970)

    private func makeAuthority() throws -> (X509Certificate, PrivateKey) {
        let key = try PrivateKey(.ecP256)
        let profile = CertificateProfile(
            commonName: "test CA",
            notBefore: now - 60,
            notAfter: now + 3600,
            isCertificateAuthority: true
        )
        return (try X509Certificate.issue(profile, subjectKey: key), key)
    }

    private func openssl(_ arguments: [String], input: Data? = nil, files: [String: String] = [:]) throws -> (
        Int32, Data
    ) {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else {
            throw XCTSkip("the openssl command is not installed")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-tests-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, contents) in files {
            try Data(contents.utf8).write(to: folder.appendingPathComponent(name))
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = folder
        let output = Pipe()
        let input = input.map { data -> Pipe in
            let pipe = Pipe()
            pipe.fileHandleForWriting.write(data)
            try? pipe.fileHandleForWriting.close()
            return pipe
        }
        process.standardInput = input ?? FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, data)
    }

    func testAuthorityAndLeafVerifyWithOpenSSL() throws {
        let (authority, authorityKey) = try makeAuthority()
        let leafKey = try PrivateKey(.ecP256)
        let profile = CertificateProfile(
            commonName: "localhost",
            dnsNames: ["localhost", "login.example"],
            ipAddresses: ["127.0.0.1", "::1"],
            notBefore: now - 60,
            notAfter: now + 3600
        )
        let leaf = try X509Certificate.issue(profile, subjectKey: leafKey, issuer: (authority, authorityKey))
        let files = ["ca.pem": try authority.pem(), "leaf.pem": try leaf.pem()]

        let (verified, verifyOutput) = try openssl(["verify", "-CAfile", "ca.pem", "leaf.pem"], files: files)
        XCTAssertEqual(verified, 0, String(decoding: verifyOutput, as: UTF8.self))

        let (_, caText) = try openssl(["x509", "-in", "ca.pem", "-noout", "-text"], files: files)
        let ca = String(decoding: caText, as: UTF8.self)
        XCTAssertTrue(ca.contains("CA:TRUE"), ca)
        XCTAssertTrue(ca.contains("Certificate Sign"), ca)

        let (_, leafText) = try openssl(["x509", "-in", "leaf.pem", "-noout", "-text"], files: files)
        let text = String(decoding: leafText, as: UTF8.self)
        XCTAssertTrue(text.contains("CA:FALSE"), text)
        XCTAssertTrue(text.contains("TLS Web Server Authentication"), text)
        XCTAssertTrue(
            text.contains("DNS:localhost, DNS:login.example, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1"),
            text
        )
    }

    func testExpiredLeafFailsVerification() throws {
        let (authority, authorityKey) = try makeAuthority()
        let profile = CertificateProfile(
            commonName: "localhost",
            dnsNames: ["localhost"],
            notBefore: now - 7200,
            notAfter: now - 3600
        )
        let leaf = try X509Certificate.issue(
            profile, subjectKey: try PrivateKey(.ecP256), issuer: (authority, authorityKey))
        let (status, output) = try openssl(
            ["verify", "-CAfile", "ca.pem", "leaf.pem"],
            files: ["ca.pem": try authority.pem(), "leaf.pem": try leaf.pem()]
        )
        XCTAssertNotEqual(status, 0)
        XCTAssertTrue(String(decoding: output, as: UTF8.self).contains("expired"))
    }

    func testSPKIHashMatchesTheOpenSSLPipeline() throws {
        let (authority, _) = try makeAuthority()
        let (status, der) = try openssl(
            ["x509", "-in", "ca.pem", "-pubkey", "-noout"],
            files: ["ca.pem": try authority.pem()]
        )
        XCTAssertEqual(status, 0)
        let (_, spki) = try openssl(["pkey", "-pubin", "-outform", "der"], input: der)
        XCTAssertEqual(try authority.subjectPublicKeyInfoDER(), Array(spki))
        let (_, digest) = try openssl(["dgst", "-sha256", "-binary"], input: spki)
        XCTAssertEqual(try authority.subjectPublicKeyInfoSHA256(), Array(digest))
    }

    func testPEMRoundTripAndRandomSerials() throws {
        let (authority, _) = try makeAuthority()
        let parsed = try X509Certificate(pem: try authority.pem())
        XCTAssertEqual(try parsed.der(), try authority.der())
        XCTAssertThrowsError(try X509Certificate(pem: "not a certificate"))
        let (other, _) = try makeAuthority()
        XCTAssertNotEqual(try other.der(), try authority.der())
    }

    func testRejectsNamesThatWouldInjectExtensions() throws {
        let key = try PrivateKey(.ecP256)
        for profile in [
            CertificateProfile(commonName: "x", dnsNames: ["a,IP:1.2.3.4"], notBefore: now, notAfter: now + 60),
            CertificateProfile(commonName: "x", dnsNames: [""], notBefore: now, notAfter: now + 60),
            CertificateProfile(commonName: "x", ipAddresses: ["localhost"], notBefore: now, notAfter: now + 60),
            CertificateProfile(commonName: "", notBefore: now, notAfter: now + 60),
            CertificateProfile(commonName: "x", notBefore: now, notAfter: now - 60),
        ] {
            XCTAssertThrowsError(try X509Certificate.issue(profile, subjectKey: key))
        }
    }
}
