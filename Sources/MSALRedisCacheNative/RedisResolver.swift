import Dispatch
internal import Glibc
import MSALNative

/// One address of a resolved Redis host, copied out of `getaddrinfo`'s list.
package struct RedisAddress: Sendable, Equatable {
    package var family: Int32
    package var protocolNumber: Int32
    /// The `sockaddr` bytes.
    package var socketAddress: [UInt8]
}

/// Host name resolution with a deadline. `getaddrinfo` cannot be given one: a slow or silent DNS
/// server holds it for the resolver's own timeouts (`/etc/resolv.conf`, 5 s per attempt and server
/// by default). A numeric address is converted at once; a name is resolved on a worker thread that
/// the caller waits for until its deadline, and then leaves to finish on its own.
package enum RedisResolver {
    /// Replaces name lookups (not numeric addresses) in tests, through `@testable import`: a DNS
    /// server that does not answer cannot be had on loopback.
    static let lookupOverride = Locked<(@Sendable (String, Int) -> LookupResult)?>(nil)

    package typealias LookupResult = Result<[RedisAddress], RedisNativeError>

    /// The addresses of `host` and `port` (TCP), before `deadline` (``RedisClock``).
    package static func resolve(host: String, port: Int, deadline: Double) throws(RedisNativeError) -> [RedisAddress] {
        if let numeric = try lookup(host, port, numericOnly: true) { return numeric }
        let result = Locked<LookupResult?>(nil)
        let done = DispatchSemaphore(value: 0)
        let override = lookupOverride.withLock { $0 }
        DispatchQueue.global(qos: .userInitiated).async {
            let found: LookupResult
            if let override {
                found = override(host, port)
            } else {
                do throws(RedisNativeError) {
                    found = .success(try lookup(host, port, numericOnly: false) ?? [])
                } catch {
                    found = .failure(error)
                }
            }
            result.withLock { $0 = found }
            done.signal()
        }
        let left = deadline - RedisClock.now()
        let nanoseconds = left > 0 ? Int(min(left, 86_400) * 1e9) : 0
        guard done.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success,
            let found = result.withLock({ $0 })
        else {
            throw RedisNativeError(.timedOut, "timed out resolving the Redis host \(host)")
        }
        switch found {
        case .success(let addresses) where !addresses.isEmpty: return addresses
        case .success: throw RedisNativeError(.connectFailed, "the Redis host \(host) has no address")
        case .failure(let error): throw error
        }
    }

    /// `getaddrinfo`; with `numericOnly`, `nil` when `host` is not a numeric address.
    private static func lookup(_ host: String, _ port: Int, numericOnly: Bool) throws(RedisNativeError)
        -> [RedisAddress]?
    {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | (numericOnly ? AI_NUMERICHOST : 0)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            if numericOnly && status == EAI_NONAME { return nil }
            throw RedisNativeError(
                .connectFailed, "cannot resolve the Redis host \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var addresses: [RedisAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            entry = current.pointee.ai_next
            let info = current.pointee
            guard let address = info.ai_addr else { continue }
            let bytes = UnsafeRawBufferPointer(start: address, count: Int(info.ai_addrlen))
            addresses.append(
                RedisAddress(family: info.ai_family, protocolNumber: info.ai_protocol, socketAddress: Array(bytes)))
        }
        return addresses
    }
}
