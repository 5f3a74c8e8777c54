import Foundation
package import MSALNative

/// Where and how to reach a Redis server.
package struct RedisEndpoint: Sendable, Equatable {
    package var host: String
    package var port: Int
    /// A PEM file of the certificate authorities to trust; TLS is used when set.
    package var tlsCAFile: String?
    /// The name the server's certificate must carry (default: `host`).
    package var tlsServerName: String?
    /// A Redis 6 ACL user (`AUTH user password`); `nil` with a password is `AUTH password`.
    package var username: String?
    package var password: String?
    /// Seconds for connecting (with TLS and AUTH) and for each command's round trip.
    package var timeout: Double
    /// The most bytes one reply may take.
    package var maximumReplyBytes: Int

    package init(
        host: String, port: Int, tlsCAFile: String? = nil, tlsServerName: String? = nil, username: String? = nil,
        password: String? = nil, timeout: Double = 5, maximumReplyBytes: Int = 64 << 20
    ) {
        self.host = host
        self.port = port
        self.tlsCAFile = tlsCAFile
        self.tlsServerName = tlsServerName
        self.username = username
        self.password = password
        self.timeout = timeout
        self.maximumReplyBytes = maximumReplyBytes
    }
}

/// One connection to a Redis server: commands are sent and their replies read with the
/// endpoint's timeout as the deadline of each round trip. Used by one thread at a time
/// (``RedisConnectionPool`` hands connections out).
///
/// After any failure the connection is unusable (``isBroken``): a reply may still be on its way,
/// so the next command would read the wrong one. The pool drops it and connects again.
package final class RedisConnection {
    private let socket: RedisSocket
    private var reader: RedisReplyReader
    private let timeout: Double
    /// What a server's error text must never show (the password).
    private let secrets: [String]
    /// Set after a failure; the connection must not be used again.
    package private(set) var isBroken = false

    /// Connects, makes the TLS handshake and authenticates.
    package init(_ endpoint: RedisEndpoint, tls: TLSContext?) throws(RedisNativeError) {
        timeout = endpoint.timeout
        secrets = [endpoint.password].compactMap { $0 }
        let deadline = RedisClock.now() + endpoint.timeout
        socket = try RedisSocket(
            host: endpoint.host, port: endpoint.port, tls: tls, serverName: endpoint.tlsServerName ?? endpoint.host,
            deadline: deadline)
        reader = RedisReplyReader(maximumReplyBytes: endpoint.maximumReplyBytes)
        if let password = endpoint.password {
            var arguments = [Array("AUTH".utf8)]
            if let username = endpoint.username { arguments.append(Array(username.utf8)) }
            arguments.append(Array(password.utf8))
            let reply = try pipeline([arguments], deadline: deadline)[0]
            if case .error(let text) = reply {
                throw RedisNativeError(.authenticationFailed, "Redis refused the credentials: \(text)")
            }
        }
    }

    /// Loads a PEM file of trusted certificate authorities into a client TLS context.
    package static func tlsContext(caFile: String) throws(RedisNativeError) -> TLSContext {
        guard let text = try? String(contentsOfFile: caFile, encoding: .utf8) else {
            throw RedisNativeError(.tlsFailed, "cannot read the Redis CA file \(caFile)")
        }
        let marker = "-----END CERTIFICATE-----"
        let blocks = text.components(separatedBy: marker).dropLast().map { $0 + marker }
        do throws(NativeError) {
            var roots: [X509Certificate] = []
            for block in blocks { roots.append(try X509Certificate(pem: block)) }
            guard !roots.isEmpty else { throw NativeError(function: "PEM", reason: "no certificate") }
            return try TLSContext.client(trusting: roots)
        } catch {
            throw RedisNativeError(
                .tlsFailed, "the Redis CA file \(caFile) holds no usable certificate: \(error.reason)")
        }
    }

    /// Sends one command and returns its reply (an error reply is a reply, not a throw).
    package func command(_ arguments: [[UInt8]]) throws(RedisNativeError) -> RedisReply {
        try pipeline([arguments], deadline: RedisClock.now() + timeout)[0]
    }

    /// Sends one command made of strings.
    package func command(_ arguments: String...) throws(RedisNativeError) -> RedisReply {
        try command(arguments.map { Array($0.utf8) })
    }

    /// Sends several commands at once and returns their replies in order.
    package func pipeline(_ commands: [[[UInt8]]]) throws(RedisNativeError) -> [RedisReply] {
        try pipeline(commands, deadline: RedisClock.now() + timeout)
    }

    private func pipeline(_ commands: [[[UInt8]]], deadline: Double) throws(RedisNativeError) -> [RedisReply] {
        guard !isBroken else { throw RedisNativeError(.connectionLost, "the connection failed before") }
        do {
            var bytes: [UInt8] = []
            for command in commands { bytes += RedisCommandFormat.format(command) }
            try socket.send(bytes, deadline: deadline)
            var replies: [RedisReply] = []
            replies.reserveCapacity(commands.count)
            while replies.count < commands.count {
                if let reply = try reader.next() {
                    replies.append(reply.redactingEcho(of: secrets))
                    continue
                }
                try reader.feed(try socket.receive(deadline: deadline))
            }
            return replies
        } catch {
            isBroken = true
            throw error
        }
    }
}

@available(*, unavailable)
extension RedisConnection: Sendable {}

extension RedisReply {
    /// The reply with its error texts (at any depth: a transaction's replies hold errors too)
    /// passed through ``RedisErrorText/redacted(_:secrets:)``.
    package func redactingEcho(of secrets: [String]) -> RedisReply {
        switch self {
        case .error(let text): .error(RedisErrorText.redacted(text, secrets: secrets))
        case .array(let elements): .array(elements.map { $0.redactingEcho(of: secrets) })
        default: self
        }
    }
}

/// A server's error text made safe to show: Redis echoes the first arguments of a command it
/// does not know (`ERR unknown command 'AUTH', with args beginning with: '<password>'`, when an
/// operator renamed `AUTH` away), and arguments are secrets and cache documents.
package enum RedisErrorText {
    /// `text` without the arguments Redis echoed, and with each of `secrets` masked wherever it
    /// still appears.
    package static func redacted(_ text: String, secrets: [String]) -> String {
        var text = text
        if let echo = text.range(of: ", with args beginning with:") {
            text = text[..<echo.lowerBound] + " (its arguments are not shown)"
        }
        for secret in secrets where !secret.isEmpty {
            text = text.replacingOccurrences(of: secret, with: "***")
        }
        return text
    }
}

/// Connections to one endpoint, shared by threads: each command borrows an idle connection (or
/// makes one) and gives it back unless it broke. A connection lost to a Redis restart is therefore
/// replaced by the next command, and a command fails only when a fresh connection fails too.
package final class RedisConnectionPool: Sendable {
    package let endpoint: RedisEndpoint
    private let tls: TLSContext?
    private let idle = Locked<[Handle]>([])

    /// A connection that the pool may hand to any thread (used by one at a time).
    private final class Handle: @unchecked Sendable {
        // @unchecked: only the thread that took it out of `idle` uses it.
        let connection: RedisConnection
        init(_ connection: RedisConnection) { self.connection = connection }
    }

    package init(_ endpoint: RedisEndpoint) throws(RedisNativeError) {
        self.endpoint = endpoint
        tls = try endpoint.tlsCAFile.map { file throws(RedisNativeError) in try RedisConnection.tlsContext(caFile: file)
        }
    }

    /// Runs `body` with a connection. When a reused connection turns out to be dead before any
    /// reply came (the server restarted or closed idle connections), `body` runs once more on a
    /// new connection; `body` must therefore be safe to repeat (commands that are idempotent, or
    /// compare-and-set).
    package func withConnection<Result>(
        _ body: (RedisConnection) throws(RedisNativeError) -> Result
    ) throws(RedisNativeError) -> Result {
        if let reused = idle.withLock({ $0.popLast() }) {
            do {
                let result = try body(reused.connection)
                giveBack(reused)
                return result
            } catch  where error.kind == .connectionLost && reused.connection.isBroken {
                // Fall through to a fresh connection.
            }
        }
        let fresh = Handle(try RedisConnection(endpoint, tls: tls))
        let result = try body(fresh.connection)
        giveBack(fresh)
        return result
    }

    /// Closes the idle connections (the next command connects again).
    package func closeIdle() {
        idle.withLock { $0.removeAll() }
    }

    private func giveBack(_ handle: Handle) {
        guard !handle.connection.isBroken else { return }
        idle.withLock { list in
            if list.count < 8 { list.append(handle) }
        }
    }
}
