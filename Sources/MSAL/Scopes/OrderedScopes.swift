/// Scopes in request order without exact duplicates, as MSAL builds them
/// (`NSOrderedSet initWithArray:`): no trimming, no case folding, first occurrence kept.
struct OrderedScopes: Sendable, Hashable, RandomAccessCollection, CustomStringConvertible {
    /// The scopes, in order.
    let values: [String]

    /// The scopes of `scopes` in order, each exact string once.
    init<S: Sequence>(_ scopes: S) where S.Element == String {
        var result: [String] = []
        result.reserveCapacity(scopes.underestimatedCount)
        // Requests name a handful of scopes: a linear check beats hashing them; long lists hash.
        var seen: Set<String>?
        for scope in scopes {
            if let existing = seen {
                if existing.contains(scope) { continue }
                seen?.insert(scope)
            } else if result.contains(scope) {
                continue
            } else if result.count == 16 {
                seen = Set(result)
                seen?.insert(scope)
            }
            result.append(scope)
        }
        values = result
    }

    /// `self` followed by the scopes of `other` it does not already contain.
    func union<S: Sequence>(_ other: S) -> OrderedScopes where S.Element == String {
        OrderedScopes(values + Array(other))
    }

    /// The scopes joined by single spaces: the wire form of the `scope` parameter.
    var scopeString: String {
        values.joined(separator: " ")
    }

    var description: String { scopeString }

    var startIndex: Int { values.startIndex }
    var endIndex: Int { values.endIndex }

    subscript(position: Int) -> String {
        values[position]
    }
}
