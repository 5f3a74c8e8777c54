// libFuzzer target: the token cache document reader (MSAL Python's JSON format). Built by
// scripts/fuzz.sh (`--sanitize=fuzzer`).
@testable import MSAL

/// Reads the input as a cache file. What reads must be written back to a document that reads
/// again with every entity and every entry kept as it was, and writing is stable from then on:
/// write(read(write(s))) == write(s).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCache(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let store = try? CacheDocument.read(input) else { return 0 }
    let written = CacheDocument.write(store)
    let reread: TokenStore
    do {
        reread = try CacheDocument.read(written)
    } catch {
        fatalError("the cache writer produced a document its reader rejects: \(error)")
    }
    // A section whose kept entries all gave way to entities of their keys is an empty dictionary.
    let kept = store.keptEntries.filter { !$0.value.isEmpty }
    precondition(
        counts(reread) == counts(store) && reread.keptEntries == kept
            && reread.accountMetadata.count == store.accountMetadata.count,
        "the cache writer lost an entry")
    precondition(CacheDocument.write(reread) == written, "writing the cache is not stable")
    return 0
}

/// How many entities of each kind `store` holds.
private func counts(_ store: TokenStore) -> [Int] {
    [
        store.accessTokens.count, store.refreshTokens.count, store.idTokens.count, store.accounts.count,
        store.appMetadata.count, store.resourceTokens.count,
    ]
}
