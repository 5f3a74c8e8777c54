import Foundation
import MSAL
import MSALRedisCacheNative

/// The codes of the errors ``MSALRedisCacheStorage`` throws (and the token calls that needed it
/// then fail with).
///
/// Each error is an `NSError` in ``/MSAL/MSALErrorDomain`` with the code
/// ``/MSAL/MSALError/internal`` (-50000); the detailed code below is under
/// ``/MSAL/MSALInternalErrorCodeKey`` (``/MSAL/MSALErrorInfo/internalCodeValue``) and the reason
/// under ``/MSAL/MSALErrorDescriptionKey``. None of them is a sign-out: the tokens stay in Redis,
/// and the call can be retried once Redis is reachable again.
///
/// ```swift
/// if MSALErrorInfo(error).internalCodeValue == MSALRedisCacheError.timedOut.rawValue { retryLater() }
/// ```
public enum MSALRedisCacheError: Int, Sendable, CaseIterable {
    /// No connection to Redis could be made: refused, unreachable, or the host name did not resolve.
    case connectionFailed = -42950
    /// Redis did not answer within ``MSALRedisConnectionConfig/timeout`` (connecting, the TLS
    /// handshake, or a command's round trip).
    case timedOut = -42951
    /// The connection broke: Redis restarted, was killed, or closed the connection mid-reply.
    /// (An idle connection found closed is replaced silently; this is reported only when a fresh
    /// connection fails too.)
    case connectionLost = -42952
    /// The TLS handshake failed: the server's certificate does not chain to
    /// ``MSALRedisConnectionConfig/tlsCAFile`` or is not valid for the host name, or the port does
    /// not speak TLS.
    case tlsFailed = -42953
    /// Redis refused the credentials (`WRONGPASS`, `NOAUTH`) or the ACL user lacks a permission
    /// this storage needs (`NOPERM`).
    case authenticationFailed = -42954
    /// What the server sent is not a Redis reply this client accepts: malformed, nested too
    /// deep, larger than ``MSALRedisConnectionConfig/maximumReplyBytes``, or of an unexpected shape.
    case protocolViolation = -42955
    /// Redis answered with an error (out of memory under `maxmemory`, `LOADING` after a restart,
    /// `READONLY` on a replica, scripting disabled...).
    case serverError = -42956

    /// The `NSError` for this code, with `reason` as its description.
    func error(_ reason: String) -> NSError {
        NSError(
            domain: MSALErrorDomain, code: MSALError.internal.rawValue,
            userInfo: [
                MSALInternalErrorCodeKey: rawValue,
                MSALErrorDescriptionKey: "Redis token cache: \(reason)",
                NSLocalizedDescriptionKey: "Redis token cache: \(reason)",
            ])
    }

    /// The code for a failure of the native client.
    init(_ kind: RedisNativeError.Kind) {
        switch kind {
        case .connectFailed: self = .connectionFailed
        case .timedOut: self = .timedOut
        case .connectionLost: self = .connectionLost
        case .tlsFailed: self = .tlsFailed
        case .authenticationFailed: self = .authenticationFailed
        case .protocolViolation: self = .protocolViolation
        }
    }

    /// The `NSError` for a failure of the native client.
    static func error(_ failure: RedisNativeError) -> NSError {
        MSALRedisCacheError(failure.kind).error(failure.reason)
    }
}
