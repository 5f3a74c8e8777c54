internal import Glibc

/// A numeric IPv4 or IPv6 socket address (no name resolution, except `localhost`, which is
/// 127.0.0.1: loopback servers and clients must not depend on /etc/hosts ordering).
struct SocketAddress {
    var storage = sockaddr_storage()
    var length: socklen_t = 0
    var family: Int32 { Int32(storage.ss_family) }

    init(storage: sockaddr_storage, length: socklen_t) {
        self.storage = storage
        self.length = length
    }

    init(host: String, port: Int) throws(NativeError) {
        guard (0...65535).contains(port) else {
            throw NativeError(function: "SocketAddress", reason: "port \(port) is not in 0...65535")
        }
        let numeric = host == "localhost" ? "127.0.0.1" : host
        var ipv4 = sockaddr_in()
        var ipv6 = sockaddr_in6()
        if inet_pton(AF_INET, numeric, &ipv4.sin_addr) == 1 {
            ipv4.sin_family = sa_family_t(AF_INET)
            ipv4.sin_port = in_port_t(UInt16(port).bigEndian)
            withUnsafeBytes(of: ipv4) { source in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) }
            }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        } else if inet_pton(AF_INET6, numeric, &ipv6.sin6_addr) == 1 {
            ipv6.sin6_family = sa_family_t(AF_INET6)
            ipv6.sin6_port = in_port_t(UInt16(port).bigEndian)
            withUnsafeBytes(of: ipv6) { source in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) }
            }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        } else {
            throw NativeError(function: "SocketAddress", reason: "not a numeric IPv4 or IPv6 address: \(host)")
        }
    }

    /// The port, in host byte order.
    var port: Int {
        withUnsafeBytes(of: storage) { raw in
            if family == AF_INET6 {
                return Int(UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port))
            }
            return Int(UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port))
        }
    }

    /// Calls `body` with the address as a `sockaddr` pointer.
    func withSockAddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        withUnsafeBytes(of: storage) { raw in
            body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), length)
        }
    }

    /// A C library failure described with `errno`.
    static func systemError(_ function: String, _ code: Int32 = errno) -> NativeError {
        NativeError(function: function, reason: String(cString: strerror(code)) + " (errno \(code))")
    }
}
