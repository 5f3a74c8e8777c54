import Glibc

/// The C library's vectorised byte search (`memchr`), for the token cache's JSON scanner.
package enum ByteSearch {
    /// The offset from `start` of the first `byte` among the `count` bytes there, or `nil`.
    @inlinable
    package static func firstOffset(of byte: UInt8, in start: UnsafePointer<UInt8>, count: Int) -> Int? {
        guard count > 0, let found = memchr(start, Int32(byte), count) else { return nil }
        return UnsafeRawPointer(found) - UnsafeRawPointer(start)
    }
}
