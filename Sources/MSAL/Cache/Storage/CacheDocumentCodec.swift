import MSALNative

/// Turns bytes into cache contents and back, outside any storage.
enum CacheDocumentCodec {
    /// Why a document could not be read at all.
    struct Corrupt: Error {
        var reason: String
        var offset: Int
    }

    /// Parses a whole document held in memory. An empty input is an empty cache.
    static func decode(_ bytes: [UInt8]) throws(Corrupt) -> CacheContents {
        if isBlank(bytes) { return CacheContents() }
        var reader = CacheDocumentReader()
        do {
            _ = try reader.consume(bytes, origin: 0, isFinal: true)
        } catch .malformed(let reason, let offset) {
            throw Corrupt(reason: reason, offset: offset)
        } catch {
            throw Corrupt(reason: "the document ends too early (truncated)", offset: bytes.count)
        }
        return reader.takeContents()
    }

    /// The document in memory; throws when a secret's file changed underneath.
    static func encode(_ contents: CacheContents) throws(CacheStorageError) -> [UInt8] {
        let output = ByteOutput(capacity: 1 << 16)
        let copier = CacheSecretCopier()
        CacheDocumentWriter.write(contents, to: output, copier: copier, placing: false)
        if copier.failed { throw .changedUnderneath(path: "(token cache)") }
        return output.bytes
    }

    static func isBlank(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
    }
}
