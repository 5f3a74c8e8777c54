/// One reply of a Redis server (RESP2), as ``RedisReplyReader`` parsed it.
package enum RedisReply: Sendable, Equatable {
    /// A bulk string (`$`): binary-safe bytes.
    case bulk([UInt8])
    /// A simple string (`+`), such as `OK`.
    case status(String)
    /// An error reply (`-`), such as `NOAUTH Authentication required.`.
    case error(String)
    /// An integer (`:`).
    case integer(Int64)
    /// The null bulk string or null array.
    case null
    /// An array (`*`).
    case array([RedisReply])

    /// The first word of an error reply (`WRONGPASS`, `NOSCRIPT`, `LOADING`...), else `nil`.
    package var errorCode: String? {
        guard case .error(let text) = self else { return nil }
        return String(text.prefix { $0 != " " })
    }
}

/// Why a Redis command failed before a reply came (or the reply could not be used).
package struct RedisNativeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure, which decides the error code an app sees.
    package enum Kind: Sendable, Equatable {
        /// No connection could be made (refused, unreachable, name not resolved).
        case connectFailed
        /// The deadline passed while connecting, sending or waiting for a reply.
        case timedOut
        /// The server closed the connection or it broke (a restart, a kill, a reset).
        case connectionLost
        /// The TLS handshake failed (an untrusted certificate, a wrong host name, not TLS).
        case tlsFailed
        /// The server rejected the credentials (`WRONGPASS`, `NOAUTH`, `NOPERM`).
        case authenticationFailed
        /// The bytes received are not a Redis reply this client accepts (malformed, too deep,
        /// too large).
        case protocolViolation
    }

    package let kind: Kind
    /// What happened, in words (never secrets).
    package let reason: String

    package init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    package var description: String { reason }
}
