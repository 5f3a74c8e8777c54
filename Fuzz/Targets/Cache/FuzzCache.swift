// libFuzzer target: the token cache document reader (MSAL Python's JSON format). Built by
// scripts/fuzz.sh (`--sanitize=fuzzer`).
@testable import MSAL

/// Decodes the input as a cache file. What decodes must be written back to a document that
/// decodes again, with every entity (and the entries kept byte for byte kept again), and
/// writing is stable from then on: encode(decode(encode(c))) == encode(c).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCache(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let contents = try? CacheDocumentCodec.decode(input) else { return 0 }
    let written: [UInt8]
    do {
        // Decoded from memory, every secret is in memory: writing cannot fail.
        written = try CacheDocumentCodec.encode(contents)
    } catch {
        fatalError("the cache writer failed on a document its reader accepted: \(error)")
    }
    let reread: CacheContents
    do {
        reread = try CacheDocumentCodec.decode(written)
    } catch {
        fatalError("the cache writer produced a document its reader rejects: \(error.reason) at \(error.offset)")
    }
    // Entries the reader kept byte for byte (it cannot model them) are written back as they are
    // and kept again; everything else it reads back as entities.
    let kept =
        reread.keptEntries.values.reduce(0) { $0 + $1.count }
        + reread.accountMetadataKept.values.reduce(0) { $0 + $1.count }
    precondition(
        reread.skipped.values.reduce(0, +) == kept, "the cache writer produced entries its reader skips")
    precondition(
        reread.accessTokens.count == contents.accessTokens.count
            && reread.refreshTokens.count == contents.refreshTokens.count
            && reread.idTokens.count == contents.idTokens.count && reread.accounts.count == contents.accounts.count
            && reread.appMetadata.count == contents.appMetadata.count,
        "the cache writer lost an entity")
    precondition((try? CacheDocumentCodec.encode(reread)) == written, "writing the cache is not stable")
    return 0
}
