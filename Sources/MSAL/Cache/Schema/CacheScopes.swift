import MSALNative

/// Scope-string helpers for cache matching: targets are space-separated scopes compared
/// case-insensitively (ASCII), without allocating on the lookup path.
enum CacheScopes {
    /// `token_type` compared case-insensitively, with a missing type meaning Bearer.
    static func normalizedTokenType(_ type: String?) -> String {
        (type ?? "bearer").lowercased()
    }

    /// The target MSAL Python writes: scopes sorted and joined by spaces, duplicates removed.
    static func target(_ scopes: [String]) -> String {
        var seen = Set<String>()
        return scopes.filter { !$0.isEmpty && seen.insert($0.lowercased()).inserted }.sorted().joined(separator: " ")
    }

    /// The scopes of a target, lowercased.
    static func lowercasedSet(_ target: String) -> Set<String> {
        Set(target.split(separator: " ", omittingEmptySubsequences: true).map { $0.lowercased() })
    }

    /// Whether every scope in `requested` (already lowercased, non-empty) appears in `target`,
    /// comparing ASCII case-insensitively. Allocation-free.
    static func target(_ target: String, contains requested: [String]) -> Bool {
        target.withUTF8Span { targetBytes in
            requested.allSatisfy { scope in scope.withUTF8Span { contains(targetBytes, $0) } }
        }
    }

    /// Whether `target` shares a scope with `scopes` (lowercased, non-empty), compared without case.
    static func intersects(_ target: String, lowercased scopes: [String]) -> Bool {
        !lowercasedSet(target).isDisjoint(with: scopes)
    }

    private static func contains(_ target: Span<UInt8>, _ scope: Span<UInt8>) -> Bool {
        var start = 0
        let count = target.count
        while start < count {
            while start < count && target[start] == 0x20 { start += 1 }
            var end = start
            while end < count && target[end] != 0x20 { end += 1 }
            if end - start == scope.count,
                (0..<scope.count).allSatisfy({ lowerASCII(target[start + $0]) == scope[$0] })
            {
                return true
            }
            start = end
        }
        return false
    }

    @inline(__always)
    static func lowerASCII(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }
}
