internal import CMSALOpenSSL

/// Secret bytes (keys, decrypted secrets) in memory that is wiped with `OPENSSL_cleanse` when the
/// last reference goes away.
///
/// The bytes live in their own allocation, never in a Swift array that copy-on-write could
/// duplicate behind our back. Read them through ``withUnsafeBytes(_:)`` and do not let the
/// pointer escape the closure. Initializing from a `[UInt8]` copies it; wiping that source array
/// is the caller's business.
package final class SecureBytes: @unchecked Sendable {
    // @unchecked: the storage is written only during `init` and never again until `deinit`
    // wipes it; between the two it is read-only, so sharing across threads is safe.
    private let storage: UnsafeMutableRawBufferPointer

    /// A copy of `bytes`.
    package init(_ bytes: some Collection<UInt8>) {
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 16)
        _ = storage.initializeMemory(as: UInt8.self, from: bytes)
    }

    /// `count` bytes from ``SecureRandom``, generated directly into the wiped storage.
    ///
    /// - Throws: `NativeError` when `count` is negative or the random generator fails.
    package init(randomCount count: Int) throws(NativeError) {
        guard count >= 0 else {
            throw NativeError(function: "SecureBytes.init", reason: "byte count \(count) is negative")
        }
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        do {
            try SecureRandom.fill(storage)
        } catch {
            storage.deallocate()
            throw error
        }
        self.storage = storage
    }

    deinit {
        if let base = storage.baseAddress {
            OPENSSL_cleanse(base, storage.count)
        }
        storage.deallocate()
    }

    /// The number of bytes.
    package var count: Int { storage.count }

    /// Calls `body` with the bytes; the pointer is valid only inside `body`.
    package func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeRawBufferPointer(storage))
    }

    /// Whether the bytes equal `other`, compared in constant time (``ConstantTime``).
    package func constantTimeEquals(_ other: some Collection<UInt8>) -> Bool {
        withUnsafeBytes { ConstantTime.equals($0, other) }
    }
}
