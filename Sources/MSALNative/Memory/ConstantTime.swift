internal import CMSALOpenSSL

/// Comparisons whose duration does not depend on where two secrets differ (`CRYPTO_memcmp`).
///
/// Use it to compare `state`, `nonce`, authentication tags and other secrets with a value an
/// attacker controls; `==` stops at the first difference and so leaks its position by timing.
/// The length is not secret: inputs of different lengths return `false` at once, without looking
/// at their content.
package enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes, in time independent of their content.
    package static func equals(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        let left = Array(a)
        let right = Array(b)
        guard !left.isEmpty else { return true }
        return left.withUnsafeBytes { left in
            right.withUnsafeBytes { right in
                CRYPTO_memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0
            }
        }
    }

    /// Whether the UTF-8 encodings of `a` and `b` are identical, in time independent of their
    /// content. No Unicode normalization: `"é"` precomposed and decomposed differ.
    package static func equals(_ a: String, _ b: String) -> Bool {
        equals(a.utf8, b.utf8)
    }
}
