// libFuzzer target: the token cache document reader (MSAL Python's JSON format). Built by
// scripts/fuzz.sh (`--sanitize=fuzzer`).
@testable import MSAL

/// Decodes the input as a cache file. What decodes must be written back to a document that
/// decodes again, and writing is stable from then on: encode(decode(encode(c))) == encode(c).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCache(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
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
    precondition(reread.skipped.isEmpty, "the cache writer produced entries its reader skips")
    precondition((try? CacheDocumentCodec.encode(reread)) == written, "writing the cache is not stable")
    return 0
}
