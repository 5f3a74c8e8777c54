import Foundation
import MSALNative
import MSALTestSupportNative
import XCTest

/// A TLS server and client from MSALNative talk over a real loopback socket.
final class TLSConnectionTests: XCTestCase {
    private struct Fixture {
        let authority: X509Certificate
        let server: TLSContext
        let listener: TCPListener
    }

    private func makeFixture(dnsNames: [String] = ["localhost"], ipAddresses: [String] = ["127.0.0.1"]) throws
        -> Fixture
    {
        let now = Int64(Date().timeIntervalSince1970)
        let authorityKey = try PrivateKey(.ecP256)
        let authority = try X509Certificate.issue(
            CertificateProfile(
                commonName: "CA", notBefore: now - 60, notAfter: now + 600, isCertificateAuthority: true),
            subjectKey: authorityKey
        )
        let leafKey = try PrivateKey(.ecP256)
        let leaf = try X509Certificate.issue(
            CertificateProfile(
                commonName: "server",
                dnsNames: dnsNames,
                ipAddresses: ipAddresses,
                notBefore: now - 60,
                notAfter: now + 600
            ),
            subjectKey: leafKey,
            issuer: (authority, authorityKey)
        )
        let server = try TLSContext.server(certificate: leaf, key: leafKey)
        return Fixture(authority: authority, server: server, listener: try TCPListener(host: "127.0.0.1", port: 0))
    }

    /// Accepts one connection on a thread and echoes what it reads until the end of the stream.
    private func echoOnce(_ fixture: Fixture) -> XCTestExpectation {
        let done = expectation(description: "server finished")
        let listener = fixture.listener
        let context = fixture.server
        Thread.detachNewThread {
            defer { done.fulfill() }
            guard let socket = try? listener.accept() else { return }
            defer { socket.close() }
            guard let connection = try? TLSConnection.accept(socket, context: context) else { return }
            while let bytes = try? connection.read(), !bytes.isEmpty {
                try? connection.write(bytes)
            }
            connection.shutdown()
        }
        return done
    }

    func testHandshakeAndEcho() throws {
        let fixture = try makeFixture()
        let done = echoOnce(fixture)
        let client = try TLSContext.client(trusting: [fixture.authority])
        let socket = try TCPSocket.connect(host: "127.0.0.1", port: fixture.listener.port)
        let connection = try TLSConnection.connect(socket, context: client, serverName: "127.0.0.1")
        try connection.write(Array("hello".utf8))
        XCTAssertEqual(try connection.read(), Array("hello".utf8))
        connection.shutdown()
        socket.shutdown()
        wait(for: [done], timeout: 5)
        socket.close()
    }

    func testClientRejectsWrongHostAndUnknownAuthority() throws {
        let fixture = try makeFixture(dnsNames: ["other.example"], ipAddresses: [])
        let done = echoOnce(fixture)
        let client = try TLSContext.client(trusting: [fixture.authority])
        let socket = try TCPSocket.connect(host: "127.0.0.1", port: fixture.listener.port)
        XCTAssertThrowsError(try TLSConnection.connect(socket, context: client, serverName: "127.0.0.1")) { error in
            XCTAssertTrue("\(error)".contains("certificate"), "\(error)")
        }
        socket.close()
        wait(for: [done], timeout: 5)

        let second = echoOnce(fixture)
        let stranger = try makeFixture()
        let untrusting = try TLSContext.client(trusting: [stranger.authority])
        let other = try TCPSocket.connect(host: "127.0.0.1", port: fixture.listener.port)
        XCTAssertThrowsError(try TLSConnection.connect(other, context: untrusting, serverName: "other.example"))
        other.close()
        wait(for: [second], timeout: 5)
    }

    func testListenerShutdownWakesAccept() throws {
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        let returned = expectation(description: "accept returned nil")
        Thread.detachNewThread {
            if case .some(.none) = try? listener.accept() { returned.fulfill() }
        }
        Thread.sleep(forTimeInterval: 0.05)
        listener.shutdown()
        wait(for: [returned], timeout: 2)
        listener.close()
        XCTAssertThrowsError(try TCPSocket.connect(host: "127.0.0.1", port: listener.port))
    }

    func testListenerRejectsNonNumericHosts() {
        XCTAssertThrowsError(try TCPListener(host: "example.com", port: 0))
        XCTAssertThrowsError(try TCPListener(host: "127.0.0.1", port: 70000))
    }
}
