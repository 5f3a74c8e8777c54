import Foundation
import Glibc
import MSALNative
import XCTest

@testable import MSALRedisCacheNative

/// The native client against a real `redis-server` (plain, TLS, ACL user) and against hostile
/// peers on loopback: every failure is a typed error within the deadline, never a hang or a trap.
final class RedisNativeTests: XCTestCase {
    func testCommandsRoundTripBinarySafeValues() throws {
        let server = try RedisServer()
        let connection = try RedisConnection(server.endpoint(), tls: nil)
        XCTAssertEqual(try connection.command("PING"), .status("PONG"))
        let value: [UInt8] = [0, 13, 10, 255, 36, 42]
        XCTAssertEqual(try connection.command([Array("SET".utf8), Array("k".utf8), value]), .status("OK"))
        XCTAssertEqual(try connection.command("GET", "k"), .bulk(value))
        XCTAssertEqual(try connection.command("GET", "missing"), .null)
        XCTAssertEqual(try connection.command("INCR", "n"), .integer(1))
        XCTAssertEqual(try connection.command("NOSUCHCOMMAND").errorCode, "ERR")
        let replies = try connection.pipeline([
            [Array("INCR".utf8), Array("n".utf8)], [Array("MGET".utf8), Array("n".utf8), Array("k".utf8)],
        ])
        XCTAssertEqual(replies, [.integer(2), .array([.bulk(Array("2".utf8)), .bulk(value)])])
    }

    func testAHostNameIsResolvedAndASilentResolverIsTimedOutWithinTheTimeout() throws {
        let server = try RedisServer()
        var endpoint = server.endpoint()
        endpoint.host = "localhost"  // a name: resolved by getaddrinfo on a worker, within the deadline
        XCTAssertEqual(try RedisConnection(endpoint, tls: nil).command("PING"), .status("PONG"))

        // A DNS server that never answers (none can be had on loopback): the lookup is replaced.
        let release = DispatchSemaphore(value: 0)
        RedisResolver.lookupOverride.withLock {
            $0 = { _, _ in
                _ = release.wait(timeout: .now() + 30)
                return .success([])
            }
        }
        defer {
            RedisResolver.lookupOverride.withLock { $0 = nil }
            release.signal()
        }
        endpoint.host = "redis.fleet.internal"
        endpoint.timeout = 0.5
        let start = Date()
        XCTAssertThrowsError(try RedisConnection(endpoint, tls: nil)) { error in
            XCTAssertEqual((error as? RedisNativeError)?.kind, .timedOut, "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 2, "the connection's timeout bounds the lookup")
        // A numeric address never waits for a resolver.
        endpoint.host = "127.0.0.1"
        XCTAssertEqual(try RedisConnection(endpoint, tls: nil).command("PING"), .status("PONG"))
        // A name that does not resolve is connectFailed.
        RedisResolver.lookupOverride.withLock {
            $0 = { host, _ in .failure(RedisNativeError(.connectFailed, "cannot resolve the Redis host \(host)")) }
        }
        endpoint.host = "nowhere.invalid"
        XCTAssertThrowsError(try RedisConnection(endpoint, tls: nil)) { error in
            XCTAssertEqual((error as? RedisNativeError)?.kind, .connectFailed, "\(error)")
        }
    }

    func testACLUserAuthenticatesAndWrongPasswordIsAuthenticationFailed() throws {
        let server = try RedisServer(user: (name: "fleet", password: "s3cret-pass"))
        var endpoint = server.endpoint()
        endpoint.username = "fleet"
        endpoint.password = "s3cret-pass"
        let connection = try RedisConnection(endpoint, tls: nil)
        XCTAssertEqual(try connection.command("SET", "a", "b"), .status("OK"))

        endpoint.password = "wrong"
        XCTAssertThrowsError(try RedisConnection(endpoint, tls: nil)) { error in
            XCTAssertEqual((error as? RedisNativeError)?.kind, .authenticationFailed)
            XCTAssertFalse("\(error)".contains("wrong"), "the password must not appear in the error")
        }
        // Without credentials the default user is off: commands are refused with NOAUTH.
        let anonymous = try RedisConnection(server.endpoint(), tls: nil)
        XCTAssertEqual(try anonymous.command("GET", "a").errorCode, "NOAUTH")
    }

    func testTLSVerifiesTheServerAgainstTheCAFileAndHostName() throws {
        let server = try RedisServer(tls: true)
        let endpoint = server.endpoint(tls: true)
        let context = try RedisConnection.tlsContext(caFile: try XCTUnwrap(endpoint.tlsCAFile))
        let connection = try RedisConnection(endpoint, tls: context)
        XCTAssertEqual(try connection.command("PING"), .status("PONG"))

        // Another CA: the certificate is not trusted.
        let other = try RedisServer(tls: true)
        let otherContext = try RedisConnection.tlsContext(caFile: try XCTUnwrap(other.caFile))
        XCTAssertThrowsError(try RedisConnection(endpoint, tls: otherContext)) { error in
            XCTAssertEqual((error as? RedisNativeError)?.kind, .tlsFailed, "\(error)")
        }
        // The right CA, the wrong name: the certificate is for localhost and 127.0.0.1 only.
        var misnamed = endpoint
        misnamed.tlsServerName = "redis.example.org"
        XCTAssertThrowsError(try RedisConnection(misnamed, tls: context)) { error in
            XCTAssertEqual((error as? RedisNativeError)?.kind, .tlsFailed, "\(error)")
        }
        // TLS to the plain port: the handshake fails (or times out), it does not hang.
        var plainPort = endpoint
        plainPort.port = server.port
        plainPort.timeout = 2
        XCTAssertThrowsError(try RedisConnection(plainPort, tls: context)) { error in
            let kind = (error as? RedisNativeError)?.kind
            XCTAssertTrue(kind == .tlsFailed || kind == .timedOut || kind == .connectionLost, "\(error)")
        }
    }

    func testRefusedPortIsConnectFailed() throws {
        let endpoint = RedisEndpoint(host: "127.0.0.1", port: try RedisServer.freePort(), timeout: 2)
        XCTAssertThrowsError(try RedisConnection(endpoint, tls: nil)) { error in
            XCTAssertEqual((error as? RedisNativeError)?.kind, .connectFailed, "\(error)")
        }
    }

    func testServerThatNeverAnswersTimesOut() throws {
        let peer = try HostilePeer { _ in Thread.sleep(forTimeInterval: 5) }
        let connection = try RedisConnection(peer.endpoint(timeout: 0.3), tls: nil)
        let start = Date()
        XCTAssertThrowsError(try connection.command("PING")) { error in
            XCTAssertEqual((error as? RedisNativeError)?.kind, .timedOut, "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 2)
        XCTAssertTrue(connection.isBroken)
    }

    func testTLSHandshakeWithASilentServerTimesOut() throws {
        let peer = try HostilePeer { _ in Thread.sleep(forTimeInterval: 5) }
        let server = try RedisServer(tls: true)
        var endpoint = peer.endpoint(timeout: 0.3)
        endpoint.tlsCAFile = server.caFile
        let start = Date()
        XCTAssertThrowsError(
            try RedisConnection(endpoint, tls: try RedisConnection.tlsContext(caFile: try XCTUnwrap(server.caFile)))
        ) { error in
            XCTAssertEqual((error as? RedisNativeError)?.kind, .timedOut, "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 2)
    }

    func testEndlessBulkStringHitsTheReplyLimit() throws {
        let peer = try HostilePeer { socket in
            try? socket.send(Array("$999999999999\r\n".utf8))
            let chunk = [UInt8](repeating: 65, count: 65536)
            for _ in 0..<200 { guard (try? socket.send(chunk)) != nil else { return } }
        }
        var endpoint = peer.endpoint(timeout: 5)
        endpoint.maximumReplyBytes = 1 << 20
        let connection = try RedisConnection(endpoint, tls: nil)
        XCTAssertThrowsError(try connection.command("GET", "k")) { error in
            XCTAssertEqual((error as? RedisNativeError)?.kind, .protocolViolation, "\(error)")
        }
    }

    func testDeeplyNestedReplyIsAProtocolViolation() throws {
        let peer = try HostilePeer { socket in
            // A million levels of one-element arrays.
            try? socket.send([UInt8](String(repeating: "*1\r\n", count: 1_000_000).utf8))
        }
        let connection = try RedisConnection(peer.endpoint(timeout: 5), tls: nil)
        XCTAssertThrowsError(try connection.command("GET", "k")) { error in
            XCTAssertEqual((error as? RedisNativeError)?.kind, .protocolViolation, "\(error)")
        }
    }

    func testMalformedReplyIsAProtocolViolation() throws {
        let peer = try HostilePeer { socket in try? socket.send(Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8)) }
        let connection = try RedisConnection(peer.endpoint(timeout: 5), tls: nil)
        XCTAssertThrowsError(try connection.command("PING")) { error in
            XCTAssertEqual((error as? RedisNativeError)?.kind, .protocolViolation, "\(error)")
        }
    }

    func testCloseMidReplyIsConnectionLost() throws {
        let peer = try HostilePeer { socket in try? socket.send(Array("$10\r\nabc".utf8)) }
        let connection = try RedisConnection(peer.endpoint(timeout: 5), tls: nil)
        XCTAssertThrowsError(try connection.command("GET", "k")) { error in
            XCTAssertEqual((error as? RedisNativeError)?.kind, .connectionLost, "\(error)")
        }
    }

    func testPoolReconnectsAfterARedisRestart() throws {
        let server = try RedisServer()
        let pool = try RedisConnectionPool(server.endpoint(timeout: 2))
        XCTAssertEqual(
            try pool.withConnection { (connection) throws(RedisNativeError) in try connection.command("SET", "a", "1")
            }, .status("OK"))
        server.stop()
        XCTAssertThrowsError(
            try pool.withConnection { (connection) throws(RedisNativeError) in try connection.command("GET", "a") }
        ) { error in
            let kind = (error as? RedisNativeError)?.kind
            XCTAssertTrue(kind == .connectFailed || kind == .connectionLost, "\(error)")
        }
        try server.start()
        // Nothing persisted (--save ''): the key is gone, but the pool works again.
        XCTAssertEqual(
            try pool.withConnection { (connection) throws(RedisNativeError) in try connection.command("GET", "a") },
            .null)
    }
}

/// A loopback TCP server that runs `behaviour` on each accepted connection, then closes it.
final class HostilePeer: @unchecked Sendable {
    // @unchecked: `listener` is Sendable; the accept thread only reads it.
    let listener: TCPListener

    init(_ behaviour: @escaping @Sendable (TCPSocket) -> Void) throws {
        listener = try TCPListener(host: "127.0.0.1", port: 0)
        let listener = listener
        Thread.detachNewThread {
            while let socket = try? listener.accept() {
                Thread.detachNewThread {
                    behaviour(socket)
                    socket.close()
                }
            }
        }
    }

    deinit {
        listener.shutdown()
        listener.close()
    }

    func endpoint(timeout: Double) -> RedisEndpoint {
        RedisEndpoint(host: "127.0.0.1", port: listener.port, timeout: timeout)
    }
}
