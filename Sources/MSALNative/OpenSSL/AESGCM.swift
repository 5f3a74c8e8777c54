internal import CMSALOpenSSL

/// AES-256-GCM authenticated encryption (NIST SP 800-38D), used to encrypt the token cache file.
///
/// The sealed format is `nonce (12 bytes) || ciphertext || tag (16 bytes)`. Every seal draws a
/// fresh random nonce, so never reuse a key for more than about 2^32 seals (SP 800-38D §8.3).
/// Opening authenticates before returning anything: a modified nonce, ciphertext, tag or
/// associated data, a wrong key or a truncated input throws an error whose reason starts with
/// "authentication failed", and no plaintext is released.
package enum AESGCM {
    /// The key length in bytes (AES-256).
    package static let keyByteCount = 32
    /// The nonce length in bytes (the 96-bit IV that GCM handles without extra hashing).
    package static let nonceByteCount = 12
    /// The authentication tag length in bytes.
    package static let tagByteCount = 16

    /// Encrypts and authenticates `plaintext`, and authenticates `associatedData`.
    ///
    /// - Returns: `nonce || ciphertext || tag`, 28 bytes longer than `plaintext`.
    /// - Throws: `NativeError` when the key is not 32 bytes, an input is over 2 GiB, or OpenSSL fails.
    package static func seal(
        _ plaintext: [UInt8], key: SecureBytes, associatedData: [UInt8] = []
    ) throws(NativeError) -> [UInt8] {
        try seal(plaintext, key: key, nonce: SecureRandom.bytes(nonceByteCount), associatedData: associatedData)
    }

    /// Decrypts what ``seal(_:key:associatedData:)`` produced, after checking its tag.
    ///
    /// - Throws: `NativeError` whose reason starts with "authentication failed" when the data,
    ///   associated data or key do not match; or when the key is not 32 bytes.
    package static func open(
        _ sealed: [UInt8], key: SecureBytes, associatedData: [UInt8] = []
    ) throws(NativeError) -> [UInt8] {
        let function = "AESGCM.open"
        try checkKey(key, function)
        try checkLength(sealed, "sealed input", function)
        try checkLength(associatedData, "associated data", function)
        guard sealed.count >= nonceByteCount + tagByteCount else {
            throw authenticationFailed(
                "the sealed input is \(sealed.count) bytes, shorter than a \(nonceByteCount)-byte nonce "
                    + "and a \(tagByteCount)-byte tag")
        }
        let context = try CipherContext()
        let ciphertextCount = sealed.count - nonceByteCount - tagByteCount
        var plaintext = [UInt8](repeating: 0, count: ciphertextCount)
        let authentic = key.withUnsafeBytes { key in
            sealed.withUnsafeBytes { sealed in
                associatedData.withUnsafeBytes { associatedData in
                    plaintext.withUnsafeMutableBytes { plaintext in
                        let nonce = UnsafeRawBufferPointer(rebasing: sealed[..<nonceByteCount])
                        let ciphertext = UnsafeRawBufferPointer(
                            rebasing: sealed[nonceByteCount..<(nonceByteCount + ciphertextCount)])
                        let tag = UnsafeRawBufferPointer(rebasing: sealed[(sealed.count - tagByteCount)...])
                        return context.start(encrypt: false, key: key, nonce: nonce)
                            && context.authenticate(associatedData, encrypt: false)
                            && context.transform(ciphertext, into: plaintext, encrypt: false)
                            && context.finishDecryption(tag: tag)
                    }
                }
            }
        }
        guard authentic else {
            // Never release (or leave behind) plaintext that failed authentication.
            plaintext.withUnsafeMutableBytes { if let base = $0.baseAddress { OPENSSL_cleanse(base, $0.count) } }
            ERR_clear_error()
            throw authenticationFailed(
                "the nonce, ciphertext, tag, associated data or key do not match what was sealed")
        }
        return plaintext
    }

    /// Seals with a caller-chosen nonce. Internal: only known-answer tests may fix the nonce;
    /// reusing a nonce with the same key destroys GCM's confidentiality and authenticity.
    static func seal(
        _ plaintext: [UInt8], key: SecureBytes, nonce: [UInt8], associatedData: [UInt8]
    ) throws(NativeError) -> [UInt8] {
        let function = "AESGCM.seal"
        try checkKey(key, function)
        guard nonce.count == nonceByteCount else {
            throw NativeError(
                function: function, reason: "the nonce must be \(nonceByteCount) bytes, got \(nonce.count)")
        }
        try checkLength(plaintext, "plaintext", function)
        try checkLength(associatedData, "associated data", function)
        let context = try CipherContext()
        var sealed = nonce + [UInt8](repeating: 0, count: plaintext.count + tagByteCount)
        let succeeded = key.withUnsafeBytes { key in
            plaintext.withUnsafeBytes { plaintext in
                associatedData.withUnsafeBytes { associatedData in
                    sealed.withUnsafeMutableBytes { sealed in
                        let nonce = UnsafeRawBufferPointer(rebasing: sealed[..<nonceByteCount])
                        let ciphertext = UnsafeMutableRawBufferPointer(
                            rebasing: sealed[nonceByteCount..<(nonceByteCount + plaintext.count)])
                        let tag = UnsafeMutableRawBufferPointer(rebasing: sealed[(sealed.count - tagByteCount)...])
                        return context.start(encrypt: true, key: key, nonce: nonce)
                            && context.authenticate(associatedData, encrypt: true)
                            && context.transform(plaintext, into: ciphertext, encrypt: true)
                            && context.finishEncryption(tag: tag)
                    }
                }
            }
        }
        guard succeeded else { throw NativeError.openSSL("EVP_Encrypt (AES-256-GCM)") }
        return sealed
    }

    private static func checkKey(_ key: SecureBytes, _ function: String) throws(NativeError) {
        guard key.count == keyByteCount else {
            throw NativeError(
                function: function,
                reason: "the key must be \(keyByteCount) bytes for AES-256-GCM, got \(key.count)")
        }
    }

    private static func checkLength(_ bytes: [UInt8], _ name: String, _ function: String) throws(NativeError) {
        // OpenSSL's EVP update calls take an `int` length.
        guard bytes.count <= Int(Int32.max) - 64 else {
            throw NativeError(function: function, reason: "the \(name) is \(bytes.count) bytes, over the 2 GiB limit")
        }
    }

    private static func authenticationFailed(_ detail: String) -> NativeError {
        NativeError(function: "AESGCM.open", reason: "authentication failed: \(detail)")
    }
}
