public import Foundation

/// Where the Redis server of a ``MSALRedisCacheStorage`` is and how to reach it.
///
/// ```swift
/// var redis = MSALRedisConnectionConfig(host: "redis.internal", port: 6380)
/// redis.tlsCAFile = "/etc/ssl/redis-ca.pem"
/// redis.username = "msal"
/// redis.password = ProcessInfo.processInfo.environment["REDIS_PASSWORD"]
/// ```
public struct MSALRedisConnectionConfig: Sendable, Equatable {
    /// The server's host name or numeric IPv4/IPv6 address.
    public var host: String
    /// The server's port (6379 is Redis' default; a TLS port is often 6380).
    public var port: Int
    /// A PEM file of the certificate authorities that issued the server's certificate. When set,
    /// the connection uses TLS (1.2 or later) and verifies the certificate and its host name;
    /// when `nil`, the connection is plain TCP (use that only on a trusted network).
    public var tlsCAFile: String?
    /// The name the server's certificate must be valid for, when it is not ``host`` (a numeric
    /// address is checked against the certificate's IP addresses).
    public var tlsServerName: String?
    /// The Redis 6 ACL user (`AUTH username password`); `nil` authenticates as the default user.
    public var username: String?
    /// The password (`AUTH`); `nil` sends no `AUTH`. It never appears in errors or logs.
    public var password: String?
    /// Seconds for connecting (with the TLS handshake and `AUTH`) and for each command's round
    /// trip; past it the call fails with ``MSALRedisCacheError/timedOut``. The default is 5.
    public var timeout: TimeInterval = 5
    /// The most bytes one reply may take (a larger one fails with
    /// ``MSALRedisCacheError/protocolViolation``). The default is 64 MiB.
    public var maximumReplyBytes: Int = 64 << 20

    /// A server at `host` and `port`, plain TCP, without `AUTH`.
    public init(host: String, port: Int = 6379) {
        self.host = host
        self.port = port
    }
}
