import Foundation

/// A scope set for cache matching: split on spaces, trimmed, blanks dropped, lowercased
/// (reference §4, `NSOrderedSet+MSIDExtensions.m`).
struct NormalizedScopes: Sendable, Hashable {
    /// The lowercased scopes.
    let values: Set<String>

    /// The set of a space-separated scope string, such as an access token's `target`.
    init(scopeString: String) {
        self.init(scopeString.split(separator: " ").map(String.init))
    }

    /// The set of a list of scopes; each entry is itself split on spaces.
    init<S: Sequence>(_ scopes: S) where S.Element == String {
        var values = Set<String>()
        for entry in scopes {
            for piece in entry.split(separator: " ") {
                let trimmed = ASCII.trimmed(piece)
                if !trimmed.isEmpty {
                    values.insert(trimmed.lowercased())
                }
            }
        }
        self.values = values
    }

    /// Whether every scope of `self` is in `other` (a cached access token serves a request when
    /// the requested scopes are a subset of its target).
    func isSubset(of other: NormalizedScopes) -> Bool {
        values.isSubset(of: other.values)
    }

    /// Whether `self` and `other` share a scope (saving an access token replaces cached ones whose
    /// scopes intersect its own).
    func intersects(_ other: NormalizedScopes) -> Bool {
        !values.isDisjoint(with: other.values)
    }

    var isEmpty: Bool { values.isEmpty }
}
