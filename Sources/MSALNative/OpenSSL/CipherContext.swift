internal import CMSALOpenSSL

/// Owns an `EVP_CIPHER_CTX` for one AES-256-GCM operation; freed (and wiped by OpenSSL) in
/// `deinit`, so no early exit can leak it.
final class CipherContext {
    let pointer: OpaquePointer

    init() throws(NativeError) {
        guard let pointer = EVP_CIPHER_CTX_new() else { throw NativeError.openSSL("EVP_CIPHER_CTX_new") }
        self.pointer = pointer
    }

    deinit {
        EVP_CIPHER_CTX_free(pointer)
    }

    /// Selects AES-256-GCM with a key and a 12-byte nonce; `encrypt` picks the direction.
    func start(encrypt: Bool, key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer) -> Bool {
        let initialize = encrypt ? EVP_EncryptInit_ex : EVP_DecryptInit_ex
        return initialize(pointer, EVP_aes_256_gcm(), nil, nil, nil) == 1
            && EVP_CIPHER_CTX_ctrl(pointer, cmsal_ctrl_gcm_set_ivlen(), Int32(nonce.count), nil) == 1
            && initialize(pointer, nil, nil, bytes(key), bytes(nonce)) == 1
    }

    /// Feeds associated data (authenticated, not encrypted).
    func authenticate(_ data: UnsafeRawBufferPointer, encrypt: Bool) -> Bool {
        guard data.count > 0 else { return true }
        let update = encrypt ? EVP_EncryptUpdate : EVP_DecryptUpdate
        var written: Int32 = 0
        return update(pointer, nil, &written, bytes(data), Int32(data.count)) == 1
    }

    /// Encrypts or decrypts `input` into `output` (GCM writes exactly as many bytes as it reads).
    func transform(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, encrypt: Bool) -> Bool {
        guard input.count > 0 else { return true }
        guard output.count >= input.count, let out = output.baseAddress else { return false }
        let update = encrypt ? EVP_EncryptUpdate : EVP_DecryptUpdate
        var written: Int32 = 0
        let status = update(
            pointer, out.assumingMemoryBound(to: UInt8.self), &written, bytes(input), Int32(input.count))
        return status == 1 && Int(written) == input.count
    }

    /// Finishes encryption and copies the 16-byte tag into `tag`.
    func finishEncryption(tag: UnsafeMutableRawBufferPointer) -> Bool {
        var scratch = [UInt8](repeating: 0, count: 16)
        var written: Int32 = 0
        guard EVP_EncryptFinal_ex(pointer, &scratch, &written) == 1, written == 0 else { return false }
        return EVP_CIPHER_CTX_ctrl(pointer, cmsal_ctrl_gcm_get_tag(), Int32(tag.count), tag.baseAddress) == 1
    }

    /// Sets the expected tag and finishes decryption; false when authentication fails.
    func finishDecryption(tag: UnsafeRawBufferPointer) -> Bool {
        // EVP_CIPHER_CTX_ctrl takes a mutable pointer but only reads the tag for SET_TAG.
        let tagPointer = UnsafeMutableRawPointer(mutating: tag.baseAddress)
        guard EVP_CIPHER_CTX_ctrl(pointer, cmsal_ctrl_gcm_set_tag(), Int32(tag.count), tagPointer) == 1 else {
            return false
        }
        var scratch = [UInt8](repeating: 0, count: 16)
        var written: Int32 = 0
        return EVP_DecryptFinal_ex(pointer, &scratch, &written) == 1
    }

    private func bytes(_ buffer: UnsafeRawBufferPointer) -> UnsafePointer<UInt8>? {
        buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
    }
}
